import Testing

@testable import Harness

/// Each timed visit lands its stack frame and heap blocks somewhere else.
@Suite struct LayoutJitterTests {
    @Test func returnsWhatTheBodyReturnsAndRethrows() throws {
        #expect(LayoutJitter.withRandomPlacement { 42 } == 42)
        struct Marker: Error {}
        #expect(throws: Marker.self) { try LayoutJitter.withRandomPlacement { throw Marker() } }
    }

    @Test func movesTheStackFrameBetweenCalls() {
        var offsets = Set<Int>()
        for _ in 0..<20 {
            LayoutJitter.withRandomPlacement {
                var local = 0
                _ = withUnsafeMutablePointer(to: &local) { offsets.insert(Int(bitPattern: $0) & 4095) }
            }
        }
        // 255 possible shifts: 20 draws giving one offset means the frame does not move.
        #expect(offsets.count > 1)
    }

    @Test func movesTheNextHeapAllocationBetweenCalls() {
        var addresses = Set<Int>()
        for _ in 0..<20 {
            LayoutJitter.withRandomPlacement {
                let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
                addresses.insert(Int(bitPattern: block))
                block.deallocate()
            }
        }
        #expect(addresses.count > 1)
    }
}
