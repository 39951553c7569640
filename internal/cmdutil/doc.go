// Package cmdutil is the one CLI backbone of rag-eval, rag-seed and
// rag-snapshot, in the manner of cli/cli's pkg/cmdutil:
//
//   - exit codes: an error decides the process's exit code (ExitError,
//     Usage, Silent), chosen in one place, Tool.ExitCode, and printed once,
//     every line prefixed with the tool's name (Tool.Run);
//   - the standard streams and what they are connected to (Streams): colour
//     and progress bars only on a terminal, and /dev/null is not one;
//   - flags: enum flags checked as they are parsed and completed by the
//     shell (StringEnumVar), and the eval set every command reads (EvalSet,
//     LoadCases).
//
// Each command is built by a NewCmdX(streams, runF) constructor that only
// parses flags into an options struct and then calls runF, or the
// command's own run function when runF is nil: flag parsing is tested
// apart from behaviour.
//
// cmdutil is linked into rag-eval, which links no service: it imports no
// backend, no network client and not package config.
package cmdutil
