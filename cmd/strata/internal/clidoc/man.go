package clidoc

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagValue matches urfave/cli's Markdown for a flag that takes a value:
// **--name, -n**="" (it writes ="" whatever the flag's type or default).
var flagValue = regexp.MustCompile(`\*\*--([A-Za-z0-9][A-Za-z0-9-]*)((?:, -{1,2}[A-Za-z0-9-]+)*)\*\*=""`)

// placeholders names the value of every flag of app by name: the
// backticked placeholder of its usage, else its type's (N, NUMBER,
// DURATION, VALUE); VALUE where two commands' flags of one name differ.
func placeholders(app *cli.App) map[string]string {
	out := map[string]string{}
	var walk func(flags []cli.Flag, cmds []*cli.Command)
	walk = func(flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			p := placeholder(f)
			for _, n := range f.Names() {
				if old, ok := out[n]; ok && old != p {
					p = "VALUE"
				}
				out[n] = p
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
	return out
}

func placeholder(f cli.Flag) string {
	if df, ok := f.(cli.DocGenerationFlag); ok {
		if parts := strings.SplitN(df.GetUsage(), "`", 3); len(parts) == 3 {
			return parts[1]
		}
	}
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.IntSliceFlag, *cli.Int64SliceFlag:
		return "N"
	case *cli.Float64Flag, *cli.Float64SliceFlag:
		return "NUMBER"
	case *cli.DurationFlag:
		return "DURATION"
	case *cli.TimestampFlag:
		return "TIME"
	}
	return "VALUE"
}

// withPlaceholders replaces urfave/cli's ="" after every flag that takes a
// value with its placeholder (--slurm-retries=N, not --slurm-retries="",
// which read as an empty default).
func withPlaceholders(md string, app *cli.App) string {
	ph := placeholders(app)
	return flagValue.ReplaceAllStringFunc(md, func(m string) string {
		name := flagValue.FindStringSubmatch(m)[1]
		p, ok := ph[name]
		if !ok {
			p = "VALUE"
		}
		return strings.TrimSuffix(m, `""`) + p
	})
}

// environment is the ENVIRONMENT section: every environment variable a
// flag reads, with the flags (by command) it sets.
func environment(app *cli.App) string {
	vars := map[string][]string{}
	var walk func(path string, flags []cli.Flag, cmds []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			df, ok := f.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			for _, env := range df.GetEnvVars() {
				where := "--" + f.Names()[0]
				if !slices.Contains(vars[env], where) {
					vars[env] = append(vars[env], where)
				}
			}
		}
		for _, c := range cmds {
			if !c.Hidden {
				walk(path+" "+c.Name, c.Flags, c.Subcommands)
			}
		}
	}
	walk(app.Name, app.Flags, app.Commands)
	if len(vars) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# ENVIRONMENT\n\nEvery flag below may be set by its variable; a flag on the command line wins over the variable, " +
		"the variable over the configuration file.\n\n")
	for _, env := range slices.Sorted(maps.Keys(vars)) {
		fmt.Fprintf(&b, "*%s*\n: sets %s\n\n", env, strings.Join(vars[env], ", "))
	}
	return b.String()
}
