// Package buildinfo names what a binary was built from when the linker did
// not stamp it: a plain `go build` or `go install …@vX` still reports the
// module version and the VCS revision the Go toolchain recorded.
package buildinfo

import "runtime/debug"

// Fill returns version and commit, completed from the build information
// when they are the unstamped defaults ("dev", "unknown").
func Fill(version, commit string) (string, string) {
	if info, ok := debug.ReadBuildInfo(); ok {
		return fromBuildInfo(version, commit, info)
	}
	return version, commit
}

// fromBuildInfo returns the linker-stamped version and commit, filling the
// unstamped ones ("dev", "unknown") from the build information: the main
// module's version when it is a release (not "(devel)"), and vcs.revision
// (12 hex digits, "-dirty" when vcs.modified) for the commit. Values the
// build information lacks stay as they were.
func fromBuildInfo(v, c string, info *debug.BuildInfo) (string, string) {
	if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if c != "unknown" {
		return v, c
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v, c
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return v, rev
}
