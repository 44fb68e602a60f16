package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUserTextNeverDrivesTheTerminal: a hint carrying escape sequences (a
// window-title change and a line erase) is shown, not sent (issue 13.11).
func TestUserTextNeverDrivesTheTerminal(t *testing.T) {
	var out, errb bytes.Buffer
	code := runCLI(context.Background(), []string{"strata", "hint", "check", "model=\x1b]0;owned\x07 gpus=\x1b[2K4-2"}, &out, &errb)
	if code != 2 {
		t.Errorf("exit status %d, want 2 (invalid hint)", code)
	}
	all := out.String() + errb.String()
	if strings.ContainsAny(all, "\x1b\x07") {
		t.Errorf("raw control characters reached the terminal: %q", all)
	}
	if !strings.Contains(all, `\x1b`) {
		t.Errorf("the escape is not shown: %q", all)
	}
}
