/// DispatchBench: benchmarks that test what Swift dispatch, inout and GCD patterns cost.
