extension Unicode.Scalar {
    /// A character that prints as nothing but changes what text means: zero-width spaces
    /// and joiners, left-to-right and right-to-left marks (U+200B...U+200F), the direction
    /// embeddings and overrides (U+202A...U+202E), the word joiner and invisible operators
    /// (U+2060...U+2064), the direction isolates (U+2066...U+2069), the byte order mark
    /// U+FEFF and the soft hyphen U+00AD (docs/limits.md, "Text"). Error messages escape
    /// them like control characters; a device id holding one is refused.
    public var isInvisible: Bool {
        switch value {
        case 0x00AD, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }
}
