package cmdutil

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// StringEnumVar defines a string flag that takes one of values, as
// cli/cli's StringEnumFlag does. A value is checked as the flag is parsed,
// so a bad one is a usage error before anything runs. The shell completes
// values. check, when not nil, decides instead of values which are
// accepted, and its error is the message. The flag's help is usage,
// unchanged.
//
// A default that comes from the environment is not checked here. The
// caller validates it when it uses it.
func StringEnumVar(fs *pflag.FlagSet, p *string, name, value string, values []string, check func(string) error, usage string) *pflag.Flag {
	*p = value
	fs.Var(&enumValue{p: p, name: name, values: values, check: check}, name, usage)
	return fs.Lookup(name)
}

// EnumError is the error of an enum flag given a value it does not take.
type EnumError struct {
	Flag   string   // the name, without dashes
	Value  string   // the value as given
	Values []string // the values it takes
	Err    error    // the check's error, when the flag has a check
}

func (e *EnumError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("--%s: %v", e.Flag, e.Err)
	}
	return fmt.Sprintf("--%s must be %s, got %q", e.Flag, orList(e.Values), e.Value)
}

func (e *EnumError) Unwrap() error { return e.Err }

// orList is "a", "a or b", "a, b or c".
func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

type enumValue struct {
	p      *string
	name   string
	values []string
	check  func(string) error
}

func (e *enumValue) String() string { return *e.p }

// Type is "string": the help shows the flag as a string flag.
func (e *enumValue) Type() string { return "string" }

func (e *enumValue) Set(v string) error {
	if e.check != nil {
		if err := e.check(v); err != nil {
			return &EnumError{Flag: e.name, Value: v, Values: e.values, Err: err}
		}
	} else if !slices.Contains(e.values, v) {
		return &EnumError{Flag: e.name, Value: v, Values: e.values}
	}
	*e.p = v
	return nil
}

// flagError makes every flag that cannot be parsed a usage error. An enum
// flag's error is its own message, without pflag's `invalid argument "x"
// for "--flag" flag: …` around it.
func flagError(_ *cobra.Command, err error) error {
	if ee := (*EnumError)(nil); errors.As(err, &ee) {
		return Usage(ee)
	}
	return Usage(err)
}

// registerEnumCompletions lets the shell complete the values of every enum
// flag of cmd and its subcommands.
func registerEnumCompletions(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		ev, ok := f.Value.(*enumValue)
		if !ok {
			return
		}
		if _, done := cmd.GetFlagCompletionFunc(f.Name); done {
			return
		}
		cmd.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return ev.values, cobra.ShellCompDirectiveNoFileComp
		})
	})
	for _, c := range cmd.Commands() {
		registerEnumCompletions(c)
	}
}
