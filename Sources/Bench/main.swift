// hearth-bench: measures HearthGeo's kernels against C references in one run.
// Usage: see `hearth-bench --help` and docs/benchmarks.md.

import Foundation
import _HearthShims

#if canImport(Glibc)
  import Glibc
#endif

ChildMemory.reportAtExitIfAsked()
let exitCode = BenchCommand.main(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
