import Foundation
import Testing
@testable import TillUI

@Suite struct HintLineTests {
    @Test func keepsWholePartsOnly() {
        let parts = ["Enter refund (asks first)", "Tab next field", "Esc back"]
        #expect(hintLine(parts, width: 80) == "Enter refund (asks first)   Tab next field   Esc back")
        #expect(hintLine(parts, width: 52) == "Enter refund (asks first)  Tab next field  Esc back")
        #expect(hintLine(parts, width: 41) == "Enter refund (asks first)  Tab next field")
        #expect(hintLine(parts, width: 40) == "Enter refund (asks first)")
        #expect(hintLine(parts, width: 10) == "")
        // Whatever the width, every part shown is whole and the line fits.
        for w in 0...60 {
            let line = hintLine(parts, width: w)
            #expect(line.count <= w)
            let shown = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(shown.allSatisfy(parts.contains), "width \(w): \(line)")
        }
    }
}
