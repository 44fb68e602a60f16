package hint

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/burstbuffer"
)

// Script is what a batch script says to Strata: its #SBATCH --comment and
// its burst-buffer directive lines.
type Script struct {
	Comment    string // "" when the script sets none
	HasComment bool
	BBLines    []string
}

// ReadScript reads a job script's "#SBATCH --comment=..." (or
// "--comment ..." / "-comment", quoted or not; the last one wins, as with
// sbatch) and its #BB, #BB_LUA and #DW lines. Lines after the first command
// are ignored for #SBATCH, as sbatch does.
func ReadScript(text string) Script {
	var s Script
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(line, "#!") {
			continue
		}
		switch {
		case strings.HasPrefix(line, "#BB") || strings.HasPrefix(line, "#DW"):
			s.BBLines = append(s.BBLines, line)
		case strings.HasPrefix(line, "#SBATCH"):
			if c, ok := commentOption(strings.TrimSpace(strings.TrimPrefix(line, "#SBATCH"))); ok {
				s.Comment, s.HasComment = c, true
			}
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			// sbatch stops reading #SBATCH at the first command; #BB lines
			// are read by the burst-buffer plugin anywhere, so go on.
		}
	}
	return s
}

// commentOption reads --comment from the options of one #SBATCH line.
func commentOption(opts string) (string, bool) {
	for _, p := range []string{"--comment=", "--comment ", "--comment\t"} {
		i := strings.Index(opts, p)
		if i < 0 {
			continue
		}
		v := strings.TrimSpace(opts[i+len(p):])
		if v != "" && (v[0] == '"' || v[0] == '\'') {
			if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
				return v[1 : j+1], true
			}
			return v[1:], true
		}
		if j := strings.IndexAny(v, " \t"); j >= 0 {
			v = v[:j]
		}
		return v, true
	}
	return "", false
}

// checkBB checks the script's burst-buffer directives.
func (s Script) checkBB() error {
	if len(s.BBLines) == 0 {
		return nil
	}
	if _, err := burstbuffer.ParseDirective(strings.Join(s.BBLines, "\n")); err != nil {
		return fmt.Errorf("burst buffer: %w", err)
	}
	return nil
}
