package planner

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocListsEveryPolicy: the package comment names every registered
// policy (issue 25: it had fallen three behind the registry).
func TestDocListsEveryPolicy(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`(?s)NewPolicy \(([^)]*)\)`).FindSubmatch(b)
	if list == nil {
		t.Fatal("doc.go: no policy list after NewPolicy")
	}
	named := map[string]bool{}
	for _, f := range strings.FieldsFunc(string(list[1]), func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\n' || r == '/'
	}) {
		named[f] = true
	}
	for _, n := range PolicyNames() {
		if !named[n] {
			t.Errorf("doc.go does not name policy %q", n)
		}
	}
}
