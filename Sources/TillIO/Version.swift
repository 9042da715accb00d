/// The release of till and till-sync, which `--version` prints: one number for both, raised here at each release.
public enum TillVersion {
    public static let string = "0.9.0"
}
