package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/urfave/cli/v2"
)

// defaultConfigPath is read when --config is not given and the file exists.
const defaultConfigPath = "/etc/strata/strata.toml"

// The configuration file is TOML. Every command-line flag is also a key:
// `--slurm-url` is `url` in section `[slurm]` (or `slurm-url` at top level),
// `--interval` is `interval` at top level. Precedence: flag > environment >
// file > default. Secrets (tokens, passwords) are refused in the file: they
// live in their own files, referenced by *-file keys.
type configFile struct {
	Path   string
	Values map[string]string // flag name → value
}

type configKey struct{}

// secretKeys may never appear in the configuration file.
var secretKeys = map[string]string{
	"slurm-jwt": "slurm.token-file", "slurm-token": "slurm.token-file", "jwt": "slurm.token-file",
	"database-password": "database.password-file", "password": "database.password-file",
}

// loadConfigFile reads and flattens a TOML configuration file.
func loadConfigFile(path string) (*configFile, error) {
	var raw map[string]any
	md, err := toml.DecodeFile(path, &raw)
	if err != nil {
		return nil, fmt.Errorf("read configuration %s: %w", path, err)
	}
	_ = md
	cfg := &configFile{Path: path, Values: map[string]string{}}
	if err := flatten("", raw, cfg.Values); err != nil {
		return nil, fmt.Errorf("configuration %s: %w", path, err)
	}
	for k := range cfg.Values {
		if fix, ok := secretKeys[k]; ok {
			return nil, fmt.Errorf("configuration %s: key %q holds a secret: put it in a file readable only by strata (mode 0600) and set %s instead", path, k, fix)
		}
	}
	return cfg, nil
}

func flatten(prefix string, m map[string]any, out map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		if prefix != "" {
			name = prefix + "-" + name
		}
		switch v := m[k].(type) {
		case map[string]any:
			if err := flatten(name, v, out); err != nil {
				return err
			}
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
	return nil
}

// configFromContext returns the configuration loaded by the app's Before hook
// (nil when there is none).
func configFromContext(ctx context.Context) *configFile {
	c, _ := ctx.Value(configKey{}).(*configFile)
	return c
}

// loadGlobalConfig is called once from the app's Before hook.
func loadGlobalConfig(c *cli.Context) error {
	path := c.String(flagConfig)
	if path == "" {
		if _, err := os.Stat(defaultConfigPath); err != nil {
			return nil
		}
		path = defaultConfigPath
	}
	cfg, err := loadConfigFile(path)
	if err != nil {
		return err
	}
	c.Context = context.WithValue(c.Context, configKey{}, cfg)
	// Global flags (log level and format) come from the file too.
	for _, name := range []string{flagLogLevel, flagLogFormat} {
		if v, ok := cfg.Values[name]; ok && !c.IsSet(name) {
			if err := c.Set(name, v); err != nil {
				return fmt.Errorf("configuration %s: key %q: %w", path, name, err)
			}
		}
	}
	return nil
}

// applyConfig sets every flag of the running command that was given neither
// on the command line nor through the environment from the configuration file.
func applyConfig(c *cli.Context) error {
	cfg := configFromContext(c.Context)
	if cfg == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		v, ok := cfg.Values[name]
		if !ok || c.IsSet(name) {
			continue
		}
		if err := c.Set(name, v); err != nil {
			return fmt.Errorf("configuration %s: key %q = %q: %w", cfg.Path, name, v, err)
		}
	}
	return nil
}

// withConfig makes every command (recursively) apply the configuration file
// to its flags before it runs.
func withConfig(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if err := applyConfig(c); err != nil {
				return err
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
		withConfig(cmd.Subcommands)
	}
	return cmds
}

// knownFlagNames lists every flag name of every command, for `config check`.
func knownFlagNames(cmds []*cli.Command, into map[string]bool) {
	for _, cmd := range cmds {
		for _, f := range cmd.Flags {
			for _, n := range f.Names() {
				into[n] = true
			}
		}
		knownFlagNames(cmd.Subcommands, into)
	}
}

// checkSecretFile verifies a secret file exists and is not readable by group
// or others.
func checkSecretFile(key, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", key, path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s %s has mode %04o: a secret must not be readable by others; run: chmod 600 %s",
			key, path, st.Mode().Perm(), path)
	}
	return nil
}

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "check the configuration file",
		Subcommands: []*cli.Command{{
			Name:  "check",
			Usage: "validate the configuration file: syntax, known keys, secret file permissions",
			Description: "Reads --config (default " + defaultConfigPath + "), reports unknown keys with the\n" +
				"closest flag, refuses secrets written in the file, and checks that every *-file\n" +
				"secret exists with mode 0600. Exit 0 when valid, 2 when not.",
			Action: func(c *cli.Context) error {
				cfg := configFromContext(c.Context)
				if cfg == nil {
					return exitError{code: 2, err: fmt.Errorf("no configuration file: pass --config FILE or create %s", defaultConfigPath)}
				}
				known := map[string]bool{}
				knownFlagNames(c.App.Commands, known)
				for _, f := range c.App.Flags {
					for _, n := range f.Names() {
						known[n] = true
					}
				}
				var errs []error
				keys := make([]string, 0, len(cfg.Values))
				for k := range cfg.Values {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if !known[k] {
						errs = append(errs, fmt.Errorf("unknown key %q (no flag --%s exists; see strata help)", k, k))
						continue
					}
					if strings.HasSuffix(k, "-file") && (strings.Contains(k, "token") || strings.Contains(k, "password")) {
						if err := checkSecretFile(k, cfg.Values[k]); err != nil {
							errs = append(errs, err)
						}
					}
				}
				if err := errors.Join(errs...); err != nil {
					return exitError{code: 2, err: fmt.Errorf("configuration %s is invalid:\n%w", cfg.Path, err)}
				}
				_, err := fmt.Fprintf(c.App.Writer, "%s: OK (%d keys)\n", cfg.Path, len(keys))
				return err
			},
		}},
	}
}

// exitError carries an exit status to main.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
func (e exitError) ExitCode() int { return e.code }
