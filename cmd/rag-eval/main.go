package main

import (
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…" (make
// build, make dist, the Dockerfile). go install leaves it "dev", and
// --version prints the module version instead (cmdutil.Version).
var version = "dev"

func main() { tool.Main(version) }

// tuneGC is rag-eval's one decision about the garbage collector. It is
// made for the command about to run, and only where GOGC and GOMEMLIMIT
// leave it open.
//
//   - Every command collects less often (GOGC 800). Judging allocates
//     short-lived fixture text at a high rate while the live heap stays
//     small.
//   - The commands that judge fixtures get a soft memory limit of 384 MiB,
//     well under the 500 MB budget.
//   - trec gets none. Both of its files stay in memory until the end, as in
//     trec_eval, so its heap is live data. A limit below it cannot be met
//     and would only make the collector run continuously.
func tuneGC(cmd *cobra.Command, _ []string) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	if os.Getenv("GOMEMLIMIT") == "" && cmd.Name() != "trec" {
		debug.SetMemoryLimit(384 << 20)
	}
}
