/// NFKC folding as far as `HostForms.isObfuscatedIPv4` needs it: the compatibility forms of ASCII
/// letters, digits and the full stop (fullwidth `１２７．０`, mathematical `𝟏`, circled `①`,
/// superscript `²`, `⒈` for "1."), plus the ideographic full stops IDNA reads as dots.
///
/// Full NFKC is not in the Swift standard library or FoundationEssentials; Foundation's
/// `precomposedStringWithCompatibilityMapping`, used here before, came with
/// swift-corelibs-foundation, which cost every process start about 1 ms. For "does the host's last
/// label read as a number", this folding decides the same as NFKC: a scalar missing from the table
/// has an NFKC form that is not made of ASCII letters, digits and full stops (so its label is not a
/// number either way), and no NFKC form mixes a full stop with anything else. The table is
/// generated from Foundation's NFKC, and a test compares the two for every scalar up to U+1FFFF,
/// beyond which no scalar's NFKC form is ASCII.
enum CompatibilityASCII {
    /// `text` with every listed scalar replaced by its ASCII NFKC form; other scalars unchanged.
    static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let ascii = form(of: scalar) {
                folded.append(contentsOf: ascii.unicodeScalars)
            } else {
                folded.append(scalar)
            }
        }
        return String(folded)
    }

    /// The ASCII NFKC form of `scalar` (an IDNA dot for the ideographic full stops), or nil.
    static func form(of scalar: Unicode.Scalar) -> String? {
        let value = scalar.value
        guard value >= 0x80 else { return nil }
        if value == 0x3002 || value == 0xFF61 { return "." }  // ideographic full stops: IDNA dots, not NFKC's
        if let single = singles[value] { return single }
        // The runs are sorted and few (69): a binary search.
        var low = 0, high = runs.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let run = runs[middle]
            if value < run.first {
                high = middle - 1
            } else if value > run.last {
                low = middle + 1
            } else {
                return String(Unicode.Scalar(run.ascii + UInt8(value - run.first)))
            }
        }
        return nil
    }
}
