// Package config reads Strata's TOML configuration file. Every command-line
// flag is also a key (`--slurm-url` is `url` in section `[slurm]`, or
// `slurm-url` at top level; precedence: flag > environment > file >
// default), except the `[planner]` section, which holds the planner's
// settings as typed keys (see Planner). Secrets are refused in the file:
// they live in files of their own, named by *-file keys.
//
// The same flag definitions drive start-up (Start loads the file, Wrap
// applies it to every command's flags), `config check` (Check) and SIGHUP
// reloads (Reloader), through Context: a flag is defined once, and reading
// it is the same code in all three.
package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/internal/secretfile"
)

// DefaultPath is read when --config is not given and the file exists.
const DefaultPath = "/etc/strata/strata.toml"

// File is one configuration file, read and checked.
type File struct {
	Path string
	// Values maps flag names to values in flag syntax (lists joined by
	// commas), for every key outside [planner].
	Values map[string]string
	// Planner is the [planner] section (zero when absent).
	Planner Planner
}

// secretKeys may never appear in the file; the value is the key to use.
var secretKeys = map[string]string{
	"slurm-jwt": "slurm.token-file", "slurm-token": "slurm.token-file", "jwt": "slurm.token-file",
	"database-password": "database.password-file", "password": "database.password-file",
}

// Load reads, flattens and checks a configuration file. It refuses syntax
// errors, secrets written in the file (tokens, passwords, a password inside
// the database URL) and invalid [planner] keys, listing every problem. The
// file is returned with the problems when its syntax was readable, so that
// `config check` can go on to list the rest.
func Load(path string) (*File, error) {
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		return nil, fmt.Errorf("read configuration %s: %w", path, err)
	}
	f := &File{Path: path, Values: map[string]string{}}
	var errs []error
	if sec, ok := raw["planner"]; ok {
		delete(raw, "planner")
		p, err := decodePlanner(sec)
		if err != nil {
			errs = append(errs, err)
		}
		f.Planner = p
	}
	flatten("", raw, f.Values)
	for _, k := range sortedKeys(f.Values) {
		if fix, ok := secretKeys[k]; ok {
			errs = append(errs, fmt.Errorf("key %q holds a secret: put it in a file readable only by strata (mode 0600) and set %s instead", k, fix))
		}
		if strings.HasSuffix(k, "database-url") && (db.Config{URL: f.Values[k]}).HasPassword() {
			errs = append(errs, fmt.Errorf("key %q carries a password: put it in a file readable only by strata (mode 0600) and set database.password-file instead", k))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return f, fmt.Errorf("configuration %s:\n%w", path, err)
	}
	return f, nil
}

func flatten(prefix string, m map[string]any, out map[string]string) {
	for _, k := range sortedKeys(m) {
		name := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		if prefix != "" {
			name = prefix + "-" + name
		}
		switch v := m[k].(type) {
		case map[string]any:
			flatten(name, v, out)
		case []any:
			parts := make([]string, len(v))
			for i, e := range v {
				parts[i] = fmt.Sprint(e)
			}
			out[name] = strings.Join(parts, ",")
		default:
			out[name] = fmt.Sprint(v)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Keys returns the file's flag keys in order.
func (f *File) Keys() []string { return sortedKeys(f.Values) }

// CheckSecretFile verifies that a secret file exists, is not readable by
// group or others, and is owned by the user Strata runs as or by root.
func CheckSecretFile(key, path string) error {
	_, err := secretfile.Check(key, path)
	return err
}
