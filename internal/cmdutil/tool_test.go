package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// testTool is a tool whose root does nothing and whose subcommand "wait"
// sends the process SIGINT and waits until its context is cancelled.
// preRan records the commands PreRun ran before.
func testTool(preRan *[]string) Tool {
	return Tool{
		Name:      "rag-x",
		Unmarked:  ExitFail,
		Interrupt: true,
		PreRun:    func(cmd *cobra.Command, _ []string) { *preRan = append(*preRan, cmd.Name()) },
		Root: func(*Streams) *cobra.Command {
			root := &cobra.Command{Use: "rag-x", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
			root.AddCommand(&cobra.Command{Use: "wait", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
				if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
					return err
				}
				select {
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				case <-time.After(10 * time.Second):
					return errors.New("SIGINT did not cancel the context")
				}
			}})
			return root
		},
	}
}

// Command builds the tree the binary runs and sets it up: --version prints
// the version, and a bad flag or argument is a usage error printed once.
// It does not run PreRun.
func TestToolCommand(t *testing.T) {
	var preRan []string
	tool := testTool(&preRan)
	for _, tt := range []struct {
		args           []string
		code           ExitCode
		stdout, stderr string
	}{
		{[]string{"--version"}, ExitOK, "rag-x version v1.2.3\n", ""},
		{nil, ExitOK, "", ""},
		{[]string{"--bogus"}, ExitUsage, "", "rag-x: unknown flag: --bogus\n"},
		{[]string{"extra"}, ExitUsage, "", "rag-x: unknown command \"extra\" for \"rag-x\"\n"},
		{[]string{"wait", "extra"}, ExitUsage, "", "rag-x: unknown command \"extra\" for \"rag-x wait\"\n"},
	} {
		var stdout, stderr bytes.Buffer
		f := &Streams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
		code := tool.Run(context.Background(), tool.Command(f, "v1.2.3"), tt.args)
		if code != tt.code {
			t.Errorf("%q: exit %d, want %d", tt.args, code, tt.code)
		}
		if stdout.String() != tt.stdout {
			t.Errorf("%q: stdout %q, want %q", tt.args, stdout.String(), tt.stdout)
		}
		if stderr.String() != tt.stderr {
			t.Errorf("%q: stderr %q, want %q", tt.args, stderr.String(), tt.stderr)
		}
	}
	if len(preRan) != 0 {
		t.Errorf("a tree built by Command ran PreRun before %q", preRan)
	}
}

// main, which Main runs over the process, runs PreRun before the command
// about to run. With Interrupt, SIGINT cancels the command's context
// instead of ending the process, and the command's error says so.
func TestToolMain(t *testing.T) {
	var preRan []string
	tool := testTool(&preRan)
	var stdout, stderr bytes.Buffer
	f := &Streams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
	code := tool.main(f, "dev", []string{"wait"})
	if code != ExitFail {
		t.Errorf("exit %d, want %d", code, ExitFail)
	}
	if want := "rag-x: context canceled\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want none", stdout.String())
	}
	if len(preRan) != 1 || preRan[0] != "wait" {
		t.Errorf("PreRun ran before %q, want [wait]", preRan)
	}
}
