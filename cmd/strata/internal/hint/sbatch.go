package hint

import (
	"fmt"
	"slices"
	"strings"
)

// argKind says whether an sbatch option takes a value: required (the next
// word or "=value"), optional ("=value" only) or none.
type argKind int

const (
	argNone argKind = iota
	argRequired
	argOptional
)

// sbatchLong are sbatch's long options (Slurm 24.11) and whether each
// takes a value: getopt_long accepts any unambiguous prefix of them, so
// "--comme=x" is --comment and "--co=x" is refused (comment, constraint,
// container, ...).
var sbatchLong = map[string]argKind{
	"account": argRequired, "acctg-freq": argRequired, "array": argRequired, "batch": argRequired,
	"bb": argRequired, "bbf": argRequired, "begin": argRequired, "chdir": argRequired,
	"cluster-constraint": argRequired, "clusters": argRequired, "comment": argRequired,
	"constraint": argRequired, "container": argRequired, "container-id": argRequired,
	"contiguous": argNone, "core-spec": argRequired, "cores-per-socket": argRequired,
	"cpu-freq": argRequired, "cpus-per-gpu": argRequired, "cpus-per-task": argRequired,
	"deadline": argRequired, "delay-boot": argRequired, "dependency": argRequired,
	"distribution": argRequired, "error": argRequired, "exclude": argRequired,
	"exclusive": argOptional, "export": argRequired, "export-file": argRequired, "extra": argRequired,
	"extra-node-info": argRequired, "get-user-env": argOptional, "gid": argRequired,
	"gpu-bind": argRequired, "gpu-freq": argRequired, "gpus": argRequired, "gpus-per-node": argRequired,
	"gpus-per-socket": argRequired, "gpus-per-task": argRequired, "gres": argRequired,
	"gres-flags": argRequired, "help": argNone, "hint": argRequired, "hold": argNone,
	"ignore-pbs": argNone, "input": argRequired, "job-name": argRequired,
	"kill-on-invalid-dep": argRequired, "licenses": argRequired, "mail-type": argRequired,
	"mail-user": argRequired, "mcs-label": argRequired, "mem": argRequired, "mem-bind": argRequired,
	"mem-per-cpu": argRequired, "mem-per-gpu": argRequired, "mincpus": argRequired,
	"network": argRequired, "nice": argOptional, "no-kill": argOptional, "no-requeue": argNone,
	"nodefile": argRequired, "nodelist": argRequired, "nodes": argRequired, "ntasks": argRequired,
	"ntasks-per-core": argRequired, "ntasks-per-gpu": argRequired, "ntasks-per-node": argRequired,
	"ntasks-per-socket": argRequired, "open-mode": argRequired, "output": argRequired,
	"overcommit": argNone, "oversubscribe": argNone, "parsable": argNone, "partition": argRequired,
	"power": argRequired, "prefer": argRequired, "priority": argRequired, "profile": argRequired,
	"propagate": argOptional, "qos": argRequired, "quiet": argNone, "reboot": argNone,
	"requeue": argNone, "reservation": argRequired, "resv-ports": argOptional, "segment": argRequired,
	"signal": argRequired, "sockets-per-node": argRequired, "spread-job": argNone, "stepmgr": argNone,
	"switches": argRequired, "test-only": argNone, "thread-spec": argRequired,
	"threads-per-core": argRequired, "time": argRequired, "time-min": argRequired, "tmp": argRequired,
	"tres-bind": argRequired, "tres-per-task": argRequired, "uid": argRequired, "usage": argNone,
	"use-min-nodes": argNone, "verbose": argNone, "version": argNone, "wait": argNone,
	"wait-all-nodes": argRequired, "wckey": argRequired, "wrap": argRequired,
}

// sbatchShort maps sbatch's short options to their long names.
var sbatchShort = map[byte]string{
	'A': "account", 'a': "array", 'b': "begin", 'B': "extra-node-info", 'c': "cpus-per-task",
	'C': "constraint", 'd': "dependency", 'D': "chdir", 'e': "error", 'F': "nodefile",
	'G': "gpus", 'H': "hold", 'h': "help", 'i': "input", 'J': "job-name", 'k': "no-kill",
	'L': "licenses", 'M': "clusters", 'm': "distribution", 'N': "nodes", 'n': "ntasks",
	'O': "overcommit", 'o': "output", 'p': "partition", 'Q': "quiet", 'q': "qos",
	's': "oversubscribe", 'S': "core-spec", 't': "time", 'u': "usage", 'V': "version",
	'v': "verbose", 'W': "wait", 'w': "nodelist", 'x': "exclude",
}

// longOption resolves a long option name as getopt_long does: the exact
// name, else the one option it is a prefix of.
func longOption(name string) (string, error) {
	if _, ok := sbatchLong[name]; ok {
		return name, nil
	}
	var matches []string
	for n := range sbatchLong {
		if strings.HasPrefix(n, name) {
			matches = append(matches, n)
		}
	}
	slices.Sort(matches)
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("sbatch would refuse --%s: no such option", name)
	}
	return "", fmt.Errorf("sbatch would refuse --%s: ambiguous (--%s)", name, strings.Join(matches, ", --"))
}

// splitWords splits the options of one #SBATCH line into words as sbatch
// does: blanks separate them, single and double quotes group (and are
// removed), and a word starting with '#' ends the line (a comment).
func splitWords(s string) []string {
	var out []string
	var b strings.Builder
	in, quote, started := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\r':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case c == '#' && !in:
			started = true
		default:
			b.WriteByte(c)
			in = true
		}
		if started {
			break
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// parseOptions reads the words of one #SBATCH line into opts (by long
// name; a later option replaces an earlier one, as with sbatch). Words
// that are no option, and options sbatch would refuse, are errors.
func parseOptions(words []string, opts map[string]string) []error {
	var errs []error
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "--"):
			name, val, hasVal := strings.Cut(w[2:], "=")
			long, err := longOption(name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !hasVal && sbatchLong[long] == argRequired {
				if i+1 >= len(words) {
					errs = append(errs, fmt.Errorf("sbatch would refuse --%s: it needs a value", long))
					continue
				}
				i++
				val = words[i]
			}
			opts[long] = val
		case strings.HasPrefix(w, "-") && len(w) > 1:
			for j := 1; j < len(w); j++ {
				long, ok := sbatchShort[w[j]]
				if !ok {
					errs = append(errs, fmt.Errorf("sbatch would refuse -%c: no such option", w[j]))
					break
				}
				if sbatchLong[long] != argRequired {
					opts[long] = ""
					continue
				}
				val := w[j+1:]
				if val == "" {
					if i+1 >= len(words) {
						errs = append(errs, fmt.Errorf("sbatch would refuse -%c: it needs a value", w[j]))
						break
					}
					i++
					val = words[i]
				}
				opts[long] = val
				break
			}
		default:
			errs = append(errs, fmt.Errorf("#SBATCH %s: not an option (sbatch reads only options on #SBATCH lines)", w))
		}
	}
	return errs
}
