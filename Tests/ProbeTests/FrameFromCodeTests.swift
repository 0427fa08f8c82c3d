import CProbe
import ELFSymbols
import Foundation
import Synchronization
import Testing

@testable @_spi(Benchmarks) import Probe

// x86-64 only: on aarch64 there is no answer from code (prologues vary; libunwind decides).
#if arch(x86_64)

    /// The interrupted frame decided from its function's first bytes (`cprobe_frame_from_code`) must
    /// say what libunwind says from the DWARF unwind tables, wherever it gives an answer.
    @Suite(.serialized)
    struct FrameFromCodeTests {
        struct Answer: Equatable, CustomStringConvertible {
            var kind: Int32
            var returnOffset: UInt

            var description: String {
                switch kind {
                case Int32(CPROBE_FRAME_RECORD): "record"
                case Int32(CPROBE_FRAME_NO_RECORD): "no record, return address at sp+\(returnOffset)"
                default: "unknown"
                }
            }
        }

        func fromCode(_ pc: UInt) -> Answer {
            var offset: UInt = 0
            let kind = cprobe_frame_from_code(pc, &offset)
            return Answer(kind: kind, returnOffset: kind == Int32(CPROBE_FRAME_NO_RECORD) ? offset : 0)
        }

        func fromLibunwind(_ pc: UInt) -> Answer {
            var offset: UInt = 0
            let kind = cprobe_frame_from_libunwind(pc, &offset)
            return Answer(kind: kind, returnOffset: kind == Int32(CPROBE_FRAME_NO_RECORD) ? offset : 0)
        }

        /// Functions of a loaded module that start with the frame-record prologue, at their addresses
        /// in this process: the push, and the function's last byte when it ends in `pop %rbp; ret`.
        func prologueFunctions(module: (String) -> Bool) throws -> [(name: String, push: UInt, finalReturn: UInt?)] {
            let mappings = Symbolicator.readMappings().filter { $0.executable && module($0.path) }
            let mapping = try #require(mappings.first)
            let image = try #require(Symbolicator.shared.image(path: mapping.path))
            let link = try #require(image.virtualAddress(forFileOffset: mapping.fileOffset))
            var found: [(String, UInt, UInt?)] = []
            for function in image.functionRanges where function.size >= 8 {
                let start = function.address &+ (mapping.start &- link)
                guard start >= mapping.start, start + function.size <= mapping.end else { continue }
                let code = try #require(UnsafePointer<UInt8>(bitPattern: UInt(start)))
                let push = FramePointerCode.startsWithFrameRecord(code) ? (code[0] == 0xF3 ? 4 : 0) : -1
                guard push >= 0 else { continue }
                let size = Int(function.size)
                let endsInReturn = code[size - 2] == 0x5D && code[size - 1] == 0xC3
                found.append(
                    (
                        "\(mapping.path.split(separator: "/").last!)+\(function.address)", UInt(start) + UInt(push),
                        endsInReturn ? UInt(start) + UInt(size - 1) : nil
                    ))
            }
            return found
        }

        @Test(arguments: ["test binary", "libswiftCore"])
        func prologueAndFinalReturnAgreeWithLibunwind(module: String) throws {
            FramePointerCode.publish()
            let isModule: (String) -> Bool =
                module == "test binary" ? { $0 == Bundle.main.executablePath } : { $0.hasSuffix("/libswiftCore.so") }
            let functions = try prologueFunctions(module: isModule)
            #expect(functions.count > 100)
            var compared = 0
            var disagreements: [String] = []
            // Every 7th function, so the test stays quick on large modules.
            for (name, push, finalReturn) in Swift.stride(from: 0, to: functions.count, by: 7).map({ functions[$0] }) {
                var cases = [
                    (push, Answer(kind: Int32(CPROBE_FRAME_NO_RECORD), returnOffset: 0)),
                    (push + 1, Answer(kind: Int32(CPROBE_FRAME_NO_RECORD), returnOffset: 8)),
                    (push + 4, Answer(kind: Int32(CPROBE_FRAME_RECORD), returnOffset: 0)),
                ]
                if let finalReturn {
                    cases.append((finalReturn, Answer(kind: Int32(CPROBE_FRAME_NO_RECORD), returnOffset: 0)))
                }
                for (pc, expected) in cases {
                    let code = fromCode(pc)
                    #expect(code == expected, "\(name) at \(pc - push) past the push: \(code)")
                    let unwound = fromLibunwind(pc)
                    // libunwind gives no answer for a function without unwind table entries.
                    guard code.kind != Int32(CPROBE_FRAME_UNKNOWN), unwound.kind != Int32(CPROBE_FRAME_UNKNOWN) else {
                        continue
                    }
                    compared += 1
                    if unwound != code {
                        disagreements.append("\(name) +\(pc - push): code \(code), libunwind \(unwound)")
                    }
                }
            }
            #expect(compared > 100)
            #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared): \(disagreements.prefix(5))")
        }

        @Test func sampledFramesAgreeWithLibunwind() throws {
            FramePointerCode.publish()
            let thread = SpinningThread { thread in
                // Varied work through the standard library and Foundation, so samples land in many
                // functions and many places in them.
                thread.announce()
                var round = 0
                while !thread.shouldStop {
                    round += 1
                    var numbers = (0..<300).map { ($0 &* 7919 &+ round) % 1000 }
                    numbers.sort()
                    var words: [String: Int] = [:]
                    for number in numbers { words["w\(number % 97)", default: 0] += number }
                    let text = words.keys.sorted().joined(separator: ",")
                    blackHoleForProbeTest(text.utf8.count &+ ((try? JSONEncoder().encode(words))?.count ?? 0))
                }
            }
            defer { thread.finish() }
            let sampler = try StackSampler()
            cprobe_set_frame_rule_check(1)
            for _ in 0..<1_500 {
                _ = sampler.takeSample(threadID: thread.threadID, method: .framePointers)
            }
            cprobe_set_frame_rule_check(0)
            var agreed = 0
            var disagreed = 0
            var first: UInt = 0
            cprobe_frame_rule_check_counts(&agreed, &disagreed, &first)
            let where_ = first == 0 ? "" : Symbolicator.shared.symbolicate(address: UInt64(first)).functionName
            #expect(disagreed == 0, "first at \(where_)")
            #expect(agreed > 100, "agreed \(agreed)")
        }
    }

#endif
