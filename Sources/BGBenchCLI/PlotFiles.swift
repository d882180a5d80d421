import BGBench
import Foundation

/// The PNG files `bgbench plot` draws into a report folder (Reports/plot.py; their entries
/// in ``ReportFile/all``). They come
/// after run.json, so its manifest cannot list them; instead plot.py signs each with a PNG
/// text chunk `Software: bgbench plot`, and a writer that finds such a file may replace it
/// with the folder (``OutputGuard``). A PNG without the signature is the user's.
enum PlotFiles {
    static let names = Set(ReportFile.all.filter { $0.format == .png }.map(\.name))

    /// The signature plot.py writes (`savefig(..., metadata={"Software": ...})`).
    static let software = "bgbench plot"

    /// Whether `path` (named `name` in its folder) is a PNG that `bgbench plot` drew: one of
    /// its names, a regular file, and a `tEXt` chunk `Software` = ``software`` before the
    /// image data.
    static func isDrawnByBGBench(_ path: String, name: String) -> Bool {
        guard names.contains(name) else { return false }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return signature(in: OutputGuard.firstBytes(path)) == software
    }

    /// The `Software` text of a PNG whose chunks before the image data lie within `bytes`.
    static func signature(in bytes: [UInt8]) -> String? {
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: pngSignature) else { return nil }
        var i = 8
        while i + 8 <= bytes.count {
            let length = bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[i + 4..<i + 8], as: UTF8.self)
            let data = i + 8
            guard type != "IDAT", data + length <= bytes.count else { return nil }
            if type == "tEXt", let zero = bytes[data..<data + length].firstIndex(of: 0),
                String(decoding: bytes[data..<zero], as: UTF8.self) == "Software"
            {
                return String(decoding: bytes[(zero + 1)..<(data + length)], as: UTF8.self)
            }
            i = data + length + 4  // the chunk's CRC
        }
        return nil
    }
}
