package packaging_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// contents reads the src → dst pairs of nfpm.yaml's contents (files only).
func contents(t *testing.T) (map[string]string, string) {
	t.Helper()
	b, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	src := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "- src:"):
			src = strings.TrimSpace(strings.TrimPrefix(line, "- src:"))
		case strings.HasPrefix(line, "dst:") && src != "":
			out[strings.TrimSpace(strings.TrimPrefix(line, "dst:"))] = src
			src = ""
		case strings.HasPrefix(line, "- dst:"):
			src = ""
		}
	}
	return out, string(b)
}

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// TestDebDocs (issue 26.8): the .deb has Debian's copyright file and a
// changelog, and every link of an installed guide (the README first) leads
// to a file installed beside it: the repository's README links to docs/,
// which the package does not have.
func TestDebDocs(t *testing.T) {
	files, yaml := contents(t)
	const doc = "/usr/share/doc/strata/"
	cp, ok := files[doc+"copyright"]
	if !ok {
		t.Fatal("nfpm.yaml installs no /usr/share/doc/strata/copyright")
	}
	if b, err := os.ReadFile(filepath.Join("..", cp)); err != nil || !strings.HasPrefix(string(b), "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n") {
		t.Errorf("%s: %v; want a machine-readable (DEP-5) copyright file", cp, err)
	}
	var changelog string
	for _, line := range strings.Split(yaml, "\n") {
		if v, ok := strings.CutPrefix(line, "changelog:"); ok {
			changelog = strings.TrimSpace(v)
		}
	}
	if b, err := os.ReadFile(filepath.Join("..", changelog)); changelog == "" || err != nil || !strings.Contains(string(b), "- semver:") {
		t.Errorf("changelog %q: %v; want nfpm's changelog (changelog.Debian.gz)", changelog, err)
	}
	var broken []string
	for dst, src := range files {
		if !strings.HasPrefix(dst, doc) || !strings.HasSuffix(dst, ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", src))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			abs := path.Clean(path.Join(path.Dir(dst), target))
			if _, ok := files[abs]; !ok {
				broken = append(broken, dst+" → "+target)
			}
		}
	}
	slices.Sort(broken)
	if _, ok := files[doc+"README.md"]; !ok {
		t.Error("no README installed")
	}
	if d := cmp.Diff([]string(nil), broken); d != "" {
		t.Errorf("installed guides link to files the package does not install (-want +got):\n%s", d)
	}
}
