import Foundation

/// JSON for the saved state (sorted keys, so that equal states give equal files).
enum StateCoding {
    static func encode(_ s: SimulatorState) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(s), as: UTF8.self) + "\n"
    }
    static func decode(_ text: String) throws -> SimulatorState {
        try JSONDecoder().decode(SimulatorState.self, from: Data(text.utf8))
    }
}
