package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dep5 is a parsed machine-readable copyright file: the license of each
// Files paragraph's patterns, and the licenses given a text of their own
// (a standalone License paragraph, or a Files paragraph's license text).
type dep5 struct {
	header  map[string]string
	files   map[string]string
	defined map[string]bool
}

func parseDEP5(t *testing.T, text string) dep5 {
	t.Helper()
	d := dep5{files: map[string]string{}, defined: map[string]bool{}}
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		fields := map[string]string{}
		body := map[string]bool{}
		key := ""
		for _, line := range strings.Split(para, "\n") {
			if strings.HasPrefix(line, " ") {
				fields[key] += "\n" + strings.TrimSpace(line)
				body[key] = true
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("copyright paragraph %d: line %q is neither a field nor a continuation", i+1, line)
			}
			key = k
			fields[k] = strings.TrimSpace(v)
		}
		if i == 0 {
			d.header = fields
			continue
		}
		lic, _, _ := strings.Cut(fields["License"], "\n")
		if body["License"] {
			d.defined[lic] = true
		}
		for _, f := range strings.Fields(fields["Files"]) {
			d.files[f] = lic
		}
	}
	return d
}

// commonLicenses are the texts Debian ships in /usr/share/common-licenses
// that the copyright file may name without a text of its own.
var commonLicenses = map[string]bool{"Apache-2.0": true, "GPL-2+": true}

// TestCopyrightCoversBinary (issue 35.5): the .deb's copyright file is
// machine-readable (DEP-5), says Strata is Apache-2.0 (as LICENSE at the
// root), names every Go module linked into the package's binary (the
// dcgm,nvml build, with cgo) with a license whose text it gives or Debian
// ships, and no longer calls the binary statically linked.
func TestCopyrightCoversBinary(t *testing.T) {
	b, err := os.ReadFile("doc/copyright")
	if err != nil {
		t.Fatal(err)
	}
	d := parseDEP5(t, string(b))
	lic, err := os.ReadFile(filepath.Join("..", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-tags", "dcgm,nvml",
		"-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", "./cmd/strata")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var mods []string
	for _, m := range strings.Fields(string(out)) {
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	if !slices.Contains(mods, "github.com/NVIDIA/go-dcgm") {
		t.Fatalf("go list did not see the cgo build (no go-dcgm among %d modules)", len(mods))
	}
	var problems []string
	for _, m := range mods {
		l, ok := d.files[m]
		if !ok {
			problems = append(problems, m+": not in any Files paragraph")
			continue
		}
		for _, name := range strings.FieldsFunc(strings.NewReplacer(" and ", ",", " or ", ",").Replace(l), func(r rune) bool { return r == ',' }) {
			if name = strings.TrimSpace(name); !d.defined[name] && !commonLicenses[name] {
				problems = append(problems, m+": license "+name+" has no text")
			}
		}
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"header license", d.header["License"], "Apache-2.0"},
		{"license of Strata's files", d.files["*"], "Apache-2.0"},
		{"LICENSE is the Apache License 2.0", strings.Contains(string(lic), "Apache License\n                           Version 2.0, January 2004") &&
			strings.Contains(string(lic), "END OF TERMS AND CONDITIONS"), true},
		{"no placeholder contact", strings.Contains(string(b), "localhost"), false},
		{"says the binary links libc", strings.Contains(d.header["Comment"], "links the GNU C\nlibrary"), true},
		{"no 'statically linked' program", strings.Contains(string(b), "statically linked Go program"), false},
		{"modules without a license", problems, []string(nil)},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestPackageFieldsFromMake (issue 35.5): the Maintainer and Homepage fields
// come from DEB_MAINTAINER and DEB_HOMEPAGE, which a site sets at build
// time; the defaults are not placeholders, and a malformed value stops
// `make package` with the variable's name before anything is built.
func TestPackageFieldsFromMake(t *testing.T) {
	yaml, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"maintainer: ${DEB_MAINTAINER}", "homepage: ${DEB_HOMEPAGE}"} {
		if !strings.Contains(string(yaml), "\n"+f+"\n") {
			t.Errorf("nfpm.yaml has no %q", f)
		}
	}
	tests := []struct {
		name    string
		vars    []string
		want    string // in `make -n package`'s output
		wantErr string
	}{
		{"site's values", []string{"DEB_MAINTAINER=HPC team <hpc@example.org>", "DEB_HOMEPAGE=https://hpc.example.org/strata"},
			`DEB_MAINTAINER="HPC team <hpc@example.org>" DEB_HOMEPAGE="https://hpc.example.org/strata"`, ""},
		{"Debian's DEBEMAIL", []string{"DEBFULLNAME=Ada Lovelace", "DEBEMAIL=ada@example.org"},
			`DEB_MAINTAINER="Ada Lovelace <ada@example.org>" DEB_HOMEPAGE="https://github.com/strata-hpc/strata"`, ""},
		{"maintainer without mail", []string{"DEB_MAINTAINER=strata"}, "", "DEB_MAINTAINER is \"strata\""},
		{"homepage not a URL", []string{"DEB_MAINTAINER=a <a@b.org>", "DEB_HOMEPAGE=strata"}, "", "DEB_HOMEPAGE is \"strata\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("make", append([]string{"-n", "--no-print-directory", "package"}, tc.vars...)...)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), "DEBEMAIL=", "DEBFULLNAME=")
			out, err := cmd.CombinedOutput()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(string(out), tc.wantErr) {
					t.Errorf("make -n package %v: %v, %s; want an error naming %q", tc.vars, err, out, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("make -n package %v: %v; want %s in\n%s", tc.vars, err, tc.want, out)
			}
			if strings.Contains(string(out), "localhost") {
				t.Errorf("make -n package %v: a localhost placeholder in\n%s", tc.vars, out)
			}
		})
	}
}
