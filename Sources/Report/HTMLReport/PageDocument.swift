import Foundation

/// The frame every perfkit page shares: the head with its Content Security Policy (nothing may be
/// loaded from anywhere, only the page's own script may run), the style sheet, and the script at
/// the end. The run report and the history page differ only in what lies between.
enum PageDocument {
    /// From the doctype to the opening `<main>`.
    static func open(title: String) -> Markup {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
        script-src '\(scriptHash)'; img-src data:">
        <link rel="icon" href="data:,">
        <title>\(title)</title>
        <style>\(Markup(trusted: PageStyle.css))</style>
        </head><body><main>

        """
    }

    /// From the closing `</main>` to the end, with the page's script.
    static let close: Markup = """
        </main>
        <script>\(Markup(trusted: PageStyle.script))</script>
        </body></html>

        """

    /// The CSP source of the page's own script: only this exact script may run.
    static let scriptHash = "sha256-" + Data(SHA256.hash(Array(PageStyle.script.utf8))).base64EncodedString()
}
