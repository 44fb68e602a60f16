// Package clidoc writes the manual page and the bash and zsh completion
// scripts of a urfave/cli application from its command tree, so that they
// cannot drift from the commands and flags the binary accepts. `make
// package` calls it through the hidden `strata gen-docs` command.
package clidoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"
)

// Files names what Write creates in its directory.
var Files = struct{ Man, Bash, Zsh string }{Man: "strata.1", Bash: "strata.bash", Zsh: "_strata"}

// Write creates dir and writes into it the manual page (Files.Man), the
// bash completion (Files.Bash, to install as
// /usr/share/bash-completion/completions/strata) and the zsh completion
// (Files.Zsh, for /usr/share/zsh/vendor-completions/) of app, whose name
// must be a plain word. extra is Markdown appended to the manual page
// (sections such as FILES and SEE ALSO).
func Write(app *cli.App, dir, extra string) error {
	man, err := Man(app, extra)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write docs: %w", err)
	}
	for name, body := range map[string]string{Files.Man: man, Files.Bash: Bash(app), Files.Zsh: Zsh(app)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("write docs: %w", err)
		}
	}
	return nil
}

// Man renders app's section-1 manual page (roff) from urfave/cli's Markdown
// description of every visible command and flag (each value flag with its
// placeholder: --slurm-retries=N), an ENVIRONMENT section listing every
// variable a flag reads, then extra (sections such as EXIT STATUS, FILES,
// EXAMPLES and SEE ALSO).
func Man(app *cli.App, extra string) (string, error) {
	md, err := app.ToMarkdown()
	if err != nil {
		return "", fmt.Errorf("manual page: %w", err)
	}
	md = fmt.Sprintf("%% %s 1\n\n%s\n%s\n%s", app.Name, withPlaceholders(md, app), environment(app), extra)
	return string(md2man.Render([]byte(md))), nil
}

// node is one command of the tree: the words that reach it (the app's name
// first), its visible subcommands and its flags.
type node struct {
	path  []string
	subs  []entry
	flags []entry
}

// entry is a completion candidate and its one-line description.
type entry struct{ word, usage string }

// tree lists every visible command of app, parents before children.
func tree(app *cli.App) []node {
	var out []node
	var walk func(path []string, flags []cli.Flag, cmds []*cli.Command)
	walk = func(path []string, flags []cli.Flag, cmds []*cli.Command) {
		n := node{path: path, flags: flagEntries(flags)}
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			for _, name := range c.Names() {
				n.subs = append(n.subs, entry{name, c.Usage})
			}
		}
		out = append(out, n)
		for _, c := range cmds {
			if !c.Hidden {
				walk(append(append([]string{}, path...), c.Name), c.Flags, c.Subcommands)
			}
		}
	}
	walk([]string{app.Name}, app.Flags, app.Commands)
	return out
}

// flagEntries spells each visible flag as typed (--name, -n), adding --help
// where the command did not declare it (urfave/cli adds it at run time).
func flagEntries(flags []cli.Flag) []entry {
	var out []entry
	help := false
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		usage := ""
		if df, ok := f.(cli.DocGenerationFlag); ok {
			usage = df.GetUsage()
		}
		for _, name := range f.Names() {
			if name == "help" {
				help = true
			}
			dash := "--"
			if len(name) == 1 {
				dash = "-"
			}
			out = append(out, entry{dash + name, usage})
		}
	}
	if !help {
		out = append(out, entry{"--help", "show help"})
	}
	return out
}

// words joins the candidates' words with spaces.
func words(es []entry) string {
	ws := make([]string, len(es))
	for i, e := range es {
		ws[i] = e.word
	}
	return strings.Join(ws, " ")
}

// shQuote quotes s for bash and zsh as one single-quoted word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
