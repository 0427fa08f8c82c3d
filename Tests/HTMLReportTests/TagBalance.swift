/// A small checker for the generated documents: every element that is opened is closed, in
/// order. It knows HTML's void elements, SVG's self-closing tags, and that `<style>` and
/// `<script>` contents are raw text.
enum TagBalance {
    static let voidElements: Set<String> = ["meta", "link", "br", "hr", "img", "input", "wbr"]

    /// Returns nil when balanced, otherwise a description of the first problem.
    static func problem(in html: String) -> String? {
        let characters = Array(html.utf8)
        var stack: [String] = []
        var index = 0
        func name(from start: Int) -> (String, Int) {
            var end = start
            while end < characters.count, characters[end] != UInt8(ascii: ">"), characters[end] != UInt8(ascii: " "),
                characters[end] != UInt8(ascii: "\n"), characters[end] != UInt8(ascii: "/")
            {
                end += 1
            }
            return (String(decoding: characters[start..<end], as: UTF8.self).lowercased(), end)
        }
        while index < characters.count {
            guard characters[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let next = index + 1 < characters.count ? characters[index + 1] : 0
            if next == UInt8(ascii: "!") {
                while index < characters.count, characters[index] != UInt8(ascii: ">") { index += 1 }
                continue
            }
            guard let close = characters[index...].firstIndex(of: UInt8(ascii: ">")) else {
                return "unterminated tag at byte \(index)"
            }
            if next == UInt8(ascii: "/") {
                let (tag, _) = name(from: index + 2)
                guard let open = stack.popLast() else { return "</\(tag)> without an open element" }
                if open != tag { return "</\(tag)> closes <\(open)>" }
                index = close + 1
                continue
            }
            let (tag, _) = name(from: index + 1)
            guard !tag.isEmpty, tag.first!.isLetter else { return "stray '<' at byte \(index)" }
            let selfClosing = characters[close - 1] == UInt8(ascii: "/")
            index = close + 1
            if tag == "style" || tag == "script" {
                let end = Array("</\(tag)>".utf8)
                var search = index
                while search + end.count <= characters.count, Array(characters[search..<(search + end.count)]) != end {
                    search += 1
                }
                if search + end.count > characters.count { return "<\(tag)> not closed" }
                index = search + end.count
                continue
            }
            if !selfClosing, !voidElements.contains(tag) { stack.append(tag) }
        }
        return stack.isEmpty ? nil : "unclosed: \(stack.joined(separator: ", "))"
    }

    static func count(_ needle: String, in haystack: String) -> Int {
        haystack.components(separatedBy: needle).count - 1
    }
}
