// Package cmdutil is the one CLI backbone of rag-eval, rag-seed and
// rag-snapshot, in the manner of cli/cli's pkg/cmdutil:
//
//   - Start-up: a binary is a Tool, and its main is tool.Main(version).
//     Its tests build the same command tree with Tool.Command.
//   - Exit codes: an error decides the process's exit code (ExitError,
//     Usage, Silent). Tool.ExitCode is the one place that chooses it, and
//     Tool.Run prints the error once, every line prefixed with the tool's
//     name.
//   - The standard streams and what they are connected to (Streams).
//     Colour and progress bars appear only on a terminal, and /dev/null is
//     not one.
//   - Flags: enum flags are checked as they are parsed and completed by the
//     shell (StringEnumVar). EvalSet and LoadCases are the eval set every
//     command reads.
//
// Each command is built by a NewCmdX(streams, runF) constructor that only
// parses flags into an options struct. It then calls runF, or the
// command's own run function when runF is nil, so flag parsing is tested
// apart from behaviour.
//
// cmdutil is linked into rag-eval, which links no service. So it imports
// no backend, no network client and not package config.
package cmdutil
