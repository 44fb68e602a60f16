package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "cc15dac0123456789abcdef0123456789abcdef0"}}
	dirty := append(append([]debug.BuildSetting{}, rev...), debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	for _, tc := range []struct {
		name                 string
		version, commit      string
		main                 string
		settings             []debug.BuildSetting
		wantVersion, wantCmt string
	}{
		{"stamped by the Makefile", "0.3.0", "cc15dac", "(devel)", rev, "0.3.0", "cc15dac"},
		{"plain go build in a checkout", "dev", "unknown", "(devel)", rev, "dev", "cc15dac01234"},
		{"modified work tree", "dev", "unknown", "(devel)", dirty, "dev", "cc15dac01234-dirty"},
		{"go install of a release", "dev", "unknown", "v0.3.0", nil, "v0.3.0", "unknown"},
		{"pseudo-version with vcs info", "dev", "unknown", "v0.0.0-20261124120000-cc15dac01234", rev, "v0.0.0-20261124120000-cc15dac01234", "cc15dac01234"},
		{"nothing recorded (-buildvcs=false)", "dev", "unknown", "(devel)", nil, "dev", "unknown"},
		{"only the commit stamped", "dev", "abc1234", "(devel)", rev, "dev", "abc1234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/strata-hpc/strata", Version: tc.main}, Settings: tc.settings}
			v, c := fromBuildInfo(tc.version, tc.commit, info)
			if diff := cmp.Diff([2]string{tc.wantVersion, tc.wantCmt}, [2]string{v, c}); diff != "" {
				t.Errorf("fromBuildInfo (-want +got):\n%s", diff)
			}
		})
	}
}
