package config

import "github.com/urfave/cli/v2"

// ValuesFor returns values with the keys of the commands' sections resolved
// for flags: a flag is set by its own key (`source`, `slurm-url`), or by its
// name in the section of one of the commands it belongs to, most specific
// first (`[collect] source` is the key `collect-source`), which wins. So
// `[collect] source` works as `[collect] metrics-listen` always did.
// commands are the names of the command and its parents, innermost first.
func ValuesFor(values map[string]string, commands []string, flags []cli.Flag) map[string]string {
	out := make(map[string]string, len(values))
	for k, v := range values {
		out[k] = v
	}
	for _, f := range flags {
		name := f.Names()[0]
		for _, cmd := range commands {
			if v, ok := values[cmd+"-"+name]; ok && cmd != "" {
				out[name] = v
				break
			}
		}
	}
	return out
}

// lineageNames are the names of c's command and its parents, innermost
// first.
func lineageNames(c *cli.Context) []string {
	var names []string
	for _, a := range c.Lineage() {
		if a.Command != nil && a.Command.Name != "" {
			names = append(names, a.Command.Name)
		}
	}
	return names
}
