package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// ExitCode is a process exit status of the three binaries.
type ExitCode int

// The exit codes. Each binary documents which it uses and what they mean
// for it. docs/reports.md has all three.
const (
	ExitOK         ExitCode = 0 // done
	ExitFail       ExitCode = 1 // rag-eval: a case failed. rag-seed, rag-snapshot: a case, the pipeline or a backend failed
	ExitUsage      ExitCode = 2 // usage or input error: nothing was written
	ExitRegression ExitCode = 3 // rag-eval: regression against the baseline
)

// ExitError is an error that decides the exit code.
type ExitError struct {
	Code ExitCode
	// Err is what is printed. It is nil when the command has already told
	// the user what happened, in a summary on stdout, and only the code
	// remains.
	Err error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Usage marks err as a usage or input error: the command exits 2.
func Usage(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// Usagef is Usage(fmt.Errorf(format, args...)).
func Usagef(format string, args ...any) error { return Usage(fmt.Errorf(format, args...)) }

// Silent returns an error that only sets the exit code: nothing is printed.
func Silent(code ExitCode) error { return &ExitError{Code: code} }

// Tool is one binary: the name its messages are prefixed with, what an
// error that carries no exit code means for it, and its command tree.
// Each binary's main is one line, tool.Main(version), and its tests build
// the same tree with Command and run it with Run.
type Tool struct {
	// Name prefixes every message: "rag-eval: …".
	Name string
	// Unmarked is the exit code of an error that is not an *ExitError.
	// For rag-eval it is ExitUsage: anything but a failed case or a
	// regression is a usage or input error. For rag-seed and rag-snapshot
	// it is ExitFail: a backend or the pipeline failed.
	Unmarked ExitCode
	// Interrupt makes SIGINT and SIGTERM cancel the command's context
	// instead of killing the process. Commands that must stop cleanly need
	// it: rag-seed releases its lock, rag-snapshot serve drains.
	Interrupt bool
	// Root builds the command tree over f from the NewCmdX constructors.
	// Command sets the tree up, so Root only builds it.
	Root func(f *Streams) *cobra.Command
	// PreRun, when set, runs before the command that Main runs. Tests that
	// build the tree with Command run without it.
	PreRun func(cmd *cobra.Command, args []string)
}

// Command builds the tool's command tree over f and sets it up (Setup).
// Its --version prints Version(version).
func (t Tool) Command(f *Streams, version string) *cobra.Command {
	root := t.Root(f)
	root.Version = Version(version)
	Setup(root, f)
	return root
}

// ExitCode is the one place an error is turned into an exit code.
func (t Tool) ExitCode(err error) ExitCode {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	}
	return t.Unmarked
}

// Main is a binary's main. It runs the tool's command tree over the
// process's streams and arguments and exits with its code. version is the
// one the main package was built with (-ldflags "-X main.version=…").
func (t Tool) Main(version string) {
	os.Exit(int(t.main(System(), version, os.Args[1:])))
}

// main is Main without the process: it runs the tool over f with args and
// returns the exit code. Unlike a tree built by Command, it runs PreRun,
// and with Interrupt a signal cancels the context instead of ending the
// process.
func (t Tool) main(f *Streams, version string, args []string) ExitCode {
	root := t.Command(f, version)
	root.PersistentPreRun = t.PreRun
	ctx := context.Background()
	if t.Interrupt {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return t.Run(ctx, root, args)
}

// Run executes root, set up by Setup, with args and returns the exit code.
// ctx is what the commands get from cmd.Context(). Errors are printed
// once, here, to root's error stream, every line prefixed with the tool's
// name. An error that only carries an exit code prints nothing.
func (t Tool) Run(ctx context.Context, root *cobra.Command, args []string) ExitCode {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if ee := (*ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.Err == nil) {
		PrintError(root.ErrOrStderr(), t.Name, err)
	}
	return t.ExitCode(err)
}

// Setup readies a command tree built by the NewCmdX constructors:
//
//   - It reads and writes f.
//   - cobra prints neither errors nor usage, because Tool.Run prints errors.
//   - A flag that cannot be parsed is a usage error.
//   - The shell completes the values of every enum flag (StringEnumVar).
//
// Call it once every subcommand is added.
func Setup(root *cobra.Command, f *Streams) {
	root.SetIn(f.In)
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetFlagErrorFunc(flagError)
	// cobra adds its help and completion commands when it executes; add
	// them now, so that their argument errors are usage errors too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	usageArgs(root)
	registerEnumCompletions(root)
}

// usageArgs makes a positional-argument error of c or any subcommand a
// usage error, exit 2, in every binary. Such an error is an unknown
// subcommand or a stray argument.
func usageArgs(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return Usage(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// PrintError writes err to w, every line prefixed "tool: ". A list of
// problems, one per line, then reads as the tool's own messages.
func PrintError(w io.Writer, tool string, err error) {
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(w, "%s: %s\n", tool, line)
	}
}
