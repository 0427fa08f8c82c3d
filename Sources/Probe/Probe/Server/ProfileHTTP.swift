import Foundation

/// The HTTP/1.1 that ``ProfileServer`` speaks: one GET a connection, request line and headers only
/// (no body), answered with `Connection: close`. Pure functions over bytes, so they are tested
/// without sockets.
package enum ProfileHTTP {
    /// The request line and headers must fit in this many bytes (a longer head gets 431).
    package static let headLimit = 8192

    /// A parsed request head: the method, the percent-decoded path and query, and the headers
    /// (names lowercased).
    package struct Request: Sendable, Equatable {
        package var method: String
        package var path: String
        package var query: [String: String]
        package var headers: [String: String]
    }

    /// A response, written whole: a status line, the headers, `Content-Length` and the body.
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var contentType: String
        package var headers: [(String, String)] = []
        package var body: Data

        package init(status: Int, contentType: String, headers: [(String, String)] = [], body: Data) {
            self.status = status
            self.contentType = contentType
            self.headers = headers
            self.body = body
        }

        /// A plain-text response whose body is `line` and a newline: every error is one line.
        package static func text(_ status: Int, _ line: String, headers: [(String, String)] = []) -> Response {
            let oneLine = line.split(whereSeparator: \.isNewline).joined(separator: " ")
            return Response(
                status: status, contentType: "text/plain; charset=utf-8", headers: headers,
                body: Data((oneLine + "\n").utf8))
        }

        package static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body
                && lhs.headers.map { [$0.0, $0.1] } == rhs.headers.map { [$0.0, $0.1] }
        }

        /// The bytes to send.
        package var serialized: Data {
            var head = "HTTP/1.1 \(status) \(ProfileHTTP.reason(status))\r\n"
            head += "Content-Type: \(contentType)\r\n"
            head += "Content-Length: \(body.count)\r\n"
            head += "Connection: close\r\n"
            head += "X-Content-Type-Options: nosniff\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            return Data(head.utf8) + body
        }
    }

    /// Where a head ends: the index just past the first `\r\n\r\n`, or nil while it has not come.
    package static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    /// Parses a complete head (through its blank line); a malformed one is the 400 to send.
    package static func parse(_ head: [UInt8]) -> Result<Request, ResponseError> {
        guard let text = String(validating: head, as: UTF8.self) else {
            return .failure(ResponseError(400, "request head is not UTF-8"))
        }
        var lines = text.components(separatedBy: "\r\n")
        // The head ends with "\r\n\r\n": two empty strings after the last header.
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first else { return .failure(ResponseError(400, "empty request")) }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].hasPrefix("/") else {
            return .failure(ResponseError(400, "malformed request line"))
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return .failure(ResponseError(400, "unsupported protocol version \(parts[2])"))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else {
                return .failure(ResponseError(400, "malformed header line"))
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let target = parts[1]
        let pathPart = target.prefix { $0 != "?" }
        guard let path = percentDecode(pathPart, plusIsSpace: false) else {
            return .failure(ResponseError(400, "malformed percent-encoding in the path"))
        }
        var query: [String: String] = [:]
        if pathPart.endIndex < target.endIndex {
            let queryPart = target[target.index(after: pathPart.endIndex)...]
            for pair in queryPart.split(separator: "&") {
                let equals = pair.firstIndex(of: "=") ?? pair.endIndex
                guard let name = percentDecode(pair[..<equals], plusIsSpace: true),
                    let value = percentDecode(
                        equals < pair.endIndex ? pair[pair.index(after: equals)...] : "", plusIsSpace: true)
                else {
                    return .failure(ResponseError(400, "malformed percent-encoding in the query"))
                }
                guard query[name] == nil else {
                    return .failure(ResponseError(400, "parameter \(name) given twice"))
                }
                query[name] = value
            }
        }
        // As Go's net/http: HTTP/1.1 requires a Host header (RFC 9112 §3.2).
        guard parts[2] == "HTTP/1.0" || headers["host"] != nil else {
            return .failure(ResponseError(400, "missing required Host header"))
        }
        return .success(Request(method: String(parts[0]), path: path, query: query, headers: headers))
    }

    /// `%XX` escapes decoded (and `+` as a space in a query); nil for a bad escape or bytes that
    /// are not UTF-8.
    package static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// An error answered with a status and one line of text.
    package struct ResponseError: Error, Equatable {
        package var status: Int
        package var message: String
        package init(_ status: Int, _ message: String) {
            self.status = status
            self.message = message
        }
        package var response: Response { .text(status, message) }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
