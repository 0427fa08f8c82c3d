import Foundation

/// One busy period of the watched thread, from the watchdog's first look at it.
struct StallEpisode {
    var busySince: UInt64
    var threadID: Int32?
    var firstSeen: UInt64
    var lastSeen: UInt64 = 0
    var cpuAtFirstSeen: Int64?
    /// Paused time (process stopped or suspended) not counted as stall.
    var excused: UInt64 = 0
    var pausedDuring = false
    /// Some of `excused` was the process's pause (else all of it was a wait for a CPU).
    var excusedAPause = false
    /// The thread's CPU time at a look (`cpuAtFirstSeen`'s, then each excusing look's): what a later
    /// excuse may take off is at most the time the thread did not run since (see `WatchdogLoop`).
    var cpuReading: (at: UInt64, cpu: Int64)?
    var confirmed = false
    /// Reported early, as ongoing (`reportOngoingAfter`); its final report follows at its end.
    var reported = false
    /// A long pool job during a starvation of the whole pool: that starvation's record covers it.
    var absorbed = false
    /// Every thread has its `maxSamplesPerStall` samples: the stall is only timed from here on.
    var samplingDone = false
    /// When the busy period began, in wall-clock time (the same in an early and a final report).
    let startDate: Date
    /// Sampling began (at half the threshold); samples follow every sample interval from then.
    var sampling = false
    var samplingSince: UInt64 = 0
    var nextSampleAt: UInt64 = 0
    var samples = ThreadSamples()
    /// A starvation of the cooperative pool: no one thread stalls, every pool thread is sampled.
    var isPoolStarvation: Bool
    var poolThreads: [PoolThreadSamples] = []

    /// `seenAt`: the wall-clock time at `firstSeen`.
    init(
        busySince: UInt64, threadID: Int32?, firstSeen: UInt64, cpuAtFirstSeen: Int64?, isPoolStarvation: Bool = false,
        seenAt: Date
    ) {
        self.busySince = busySince
        self.threadID = threadID
        self.firstSeen = firstSeen
        self.lastSeen = firstSeen
        self.cpuAtFirstSeen = cpuAtFirstSeen
        cpuReading = cpuAtFirstSeen.map { (firstSeen, $0) }
        self.isPoolStarvation = isPoolStarvation
        startDate = seenAt.addingTimeInterval(-Double(firstSeen.saturatingSubtract(busySince)) / 1e9)
    }

    /// When the watchdog should wake for this episode's next sample; nil while none is wanted.
    var nextSample: UInt64? { sampling && !samplingDone ? nextSampleAt : nil }

    /// Adds one sample of the episode's thread (none when it has none), until `limit` samples.
    mutating func sampleItsThread(with reader: any StalledThreadReader, now: UInt64, limit: Int) {
        guard let threadID else { return }
        reader.sample(threadID, into: &samples, since: samplingSince, now: now)
        samplingDone = samples.sampleCount >= limit
    }
}

/// The samples of one pool thread during a starvation.
struct PoolThreadSamples {
    var thread: PoolThread
    var samples = ThreadSamples()
}

extension UInt64 {
    /// `self - other`, or 0 when `other` is later: the watched thread may stamp its busy time
    /// just after the watchdog read the clock.
    func saturatingSubtract(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
