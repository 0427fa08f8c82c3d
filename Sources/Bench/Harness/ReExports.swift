// `SampleStatistics`, `QuantileInterval`, `SignedRankInterval`, `Binomial` and `EstimateWithInterval`
// were Harness's until they joined perfkit's other statistics in PerfStatistics (not a product):
// re-exported, so that `import Harness` keeps finding them.
@_exported import PerfStatistics
