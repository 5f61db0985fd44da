import CQRencode

/// A QR code as SVG, encoded by libqrencode: one path of dark modules on a white square with the
/// four-module quiet zone scanners need.
enum QRCodeSVG {
    /// The code for `text` (error correction M: a projected code survives a smudge or glare),
    /// or nil when libqrencode cannot encode it (too long).
    static func svg(for text: String) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width), quiet = 4, size = width + 2 * quiet
        var path = ""
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 == 1 {
                path += "M\(x + quiet) \(y + quiet)h1v1h-1z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
