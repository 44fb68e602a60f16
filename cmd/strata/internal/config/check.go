package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Validator checks a command's options exactly as the command does when it
// starts, from a context built from the file (Context).
type Validator func(c *cli.Context, f *File) error

// Check lists every problem of f at once (`strata config check`): loadErr
// (what Load reported), keys that are no flag of app (global or of any
// command), *-file secrets that are missing or readable by others, and
// values that do not parse or that the validators of app's commands (by
// command name) refuse, each problem once. It returns nil when f is valid.
func Check(app *cli.App, f *File, loadErr error, validators map[string]Validator) []error {
	errs := unwrapJoined(loadErr)
	known := map[string]bool{}
	knownFlagNames(app.Commands, nil, known)
	for _, fl := range app.Flags {
		for _, n := range fl.Names() {
			known[n] = true
		}
	}
	for _, k := range f.Keys() {
		if !known[k] {
			errs = append(errs, fmt.Errorf("unknown key %q (no flag --%s exists; see strata help)", k, k))
			continue
		}
		if strings.HasSuffix(k, "-file") && (strings.Contains(k, "token") || strings.Contains(k, "password")) {
			if err := CheckSecretFile(k, f.Values[k]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	seen := map[string]bool{}
	for _, cmd := range app.Commands {
		validate, ok := validators[cmd.Name]
		if !ok {
			continue
		}
		ctx, err := Context(app, cmd.Flags, ValuesFor(f.Values, []string{cmd.Name}, cmd.Flags), nil, nil)
		for _, e := range append(unwrapJoined(err), unwrapJoined(validate(ctx, f))...) {
			if !seen[e.Error()] {
				seen[e.Error()] = true
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// knownFlagNames lists every flag name of every command, and the keys of
// the commands' sections (`[collect] source` is collect-source; parents
// are the names of the commands above cmds).
func knownFlagNames(cmds []*cli.Command, parents []string, into map[string]bool) {
	for _, cmd := range cmds {
		sections := append([]string{cmd.Name}, parents...)
		for _, f := range cmd.Flags {
			for _, n := range f.Names() {
				into[n] = true
			}
			for _, s := range sections {
				into[s+"-"+f.Names()[0]] = true
			}
		}
		knownFlagNames(cmd.Subcommands, sections, into)
	}
}

// unwrapJoined flattens errors.Join trees (and a leading "configuration
// FILE:" wrapper) into their parts.
func unwrapJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unwrapJoined(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		if _, ok := inner.(interface{ Unwrap() []error }); ok {
			return unwrapJoined(inner)
		}
	}
	return []error{err}
}
