/// Deterministic bootstrap resampling, shared by ``SampleStatistics`` (CI of a median) and
/// ``Comparator`` (CI of a ratio of medians).
///
/// The generator is seeded from the bit patterns of the data, so analysing the same samples twice
/// (in `perfkit run` and later in `perfkit compare`, or on another machine) gives the same
/// interval to the last bit. The generator and the index mapping are written out here rather
/// than taken from the standard library, whose `random(in:using:)` may change between releases.
package enum Bootstrap {
    /// A seed that depends on every value, its position and the array boundaries (FNV-1a over the
    /// bit patterns, then one SplitMix64 step to spread the bits).
    package static func seed(_ arrays: [Double]...) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ word: UInt64) {
            var word = word
            for _ in 0..<8 {
                hash = (hash ^ (word & 0xFF)) &* 0x0000_0100_0000_01B3
                word >>= 8
            }
        }
        for array in arrays {
            mix(UInt64(array.count))
            for value in array { mix(value.bitPattern) }
        }
        var generator = SplitMix64(seed: hash)
        return generator.next()
    }

    /// The median of one resample (n draws with replacement) of `sorted`.
    ///
    /// Draws indices rather than values and counts how often each index was drawn; because
    /// `sorted` is sorted, walking the counts visits the resample in order, so the median costs
    /// O(n) instead of a sort. `counts` is scratch space of `sorted.count` elements.
    package static func resampledMedian(
        of sorted: [Double], counts: inout [Int], using generator: inout SplitMix64
    ) -> Double {
        let n = sorted.count
        for i in 0..<n { counts[i] = 0 }
        for _ in 0..<n { counts[generator.nextIndex(below: n)] += 1 }
        // 0-based positions of the middle element(s) of the resample.
        let upperMiddle = n / 2
        let lowerMiddle = n % 2 == 0 ? upperMiddle - 1 : upperMiddle
        var seen = 0
        var lowerValue = 0.0
        for index in 0..<n where counts[index] > 0 {
            let next = seen + counts[index]
            if seen <= lowerMiddle && lowerMiddle < next { lowerValue = sorted[index] }
            if seen <= upperMiddle && upperMiddle < next {
                return lowerMiddle == upperMiddle ? sorted[index] : (lowerValue + sorted[index]) / 2
            }
            seen = next
        }
        preconditionFailure("resample of \(n) values has no middle element")
    }

    /// The percentile interval of `estimates` (sorted in place) at `level`, e.g. 2.5%…97.5% for 0.95.
    package static func percentileInterval(_ estimates: inout [Double], level: Double) -> (lower: Double, upper: Double)
    {
        estimates.sort()
        let tail = (1 - level) / 2
        return (
            SampleStatistics.quantile(estimates, tail),
            SampleStatistics.quantile(estimates, 1 - tail)
        )
    }
}
