package hint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/burstbuffer"
)

// Script is what a batch script says to Strata, read as sbatch reads it:
// the #SBATCH options before the first command (a later option replaces an
// earlier one), and the burst-buffer directive lines.
type Script struct {
	Comment    string // "" when the script sets none
	HasComment bool
	BBLines    []string
	// GPUs is the job's GPU request in total (--gpus, else the GPUs per
	// node of --gres/--gpus-per-node times the minimum of --nodes); 0 when
	// the script asks for none. GPUType is the type named there, if any.
	GPUs    int
	GPUType string
	// TimeLimit is --time (0: not set, or UNLIMITED).
	TimeLimit time.Duration
	// Partition and Account are --partition (its first entry) and --account.
	Partition, Account string
	// Errors are the options sbatch would refuse; Ignored the #SBATCH lines
	// after the first command, which sbatch does not read.
	Errors  []error
	Ignored []string
}

// ReadScript reads a job script as sbatch does: #SBATCH lines (at the
// start of a line) up to the first line that is neither blank nor a
// comment, their options split as a shell would and matched as getopt_long
// does (unambiguous prefixes of long options, clustered short options),
// the last of a repeated option winning. #BB, #BB_LUA and #DW lines are
// read anywhere, as the burst-buffer plugin does.
func ReadScript(text string) Script {
	var s Script
	opts := map[string]string{}
	commands := false
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if i == 0 && strings.HasPrefix(line, "#!") {
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "#BB") || strings.HasPrefix(trimmed, "#DW"):
			s.BBLines = append(s.BBLines, trimmed)
		case strings.HasPrefix(line, "#SBATCH") && (len(line) == 7 || line[7] == ' ' || line[7] == '\t'):
			if commands {
				s.Ignored = append(s.Ignored, fmt.Sprintf("line %d: %s", i+1, line))
				continue
			}
			s.Errors = append(s.Errors, parseOptions(splitWords(line[7:]), opts)...)
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		default:
			commands = true
		}
	}
	s.Comment, s.HasComment = opts["comment"]
	s.Partition, _, _ = strings.Cut(opts["partition"], ",")
	s.Account = opts["account"]
	if err := s.readResources(opts); err != nil {
		s.Errors = append(s.Errors, err)
	}
	return s
}

// readResources reads the GPU request and the time limit.
func (s *Script) readResources(opts map[string]string) error {
	var errs []error
	if v, ok := opts["time"]; ok {
		d, err := ParseSlurmTime(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("sbatch would refuse --time=%s: %w", v, err))
		}
		s.TimeLimit = d
	}
	nodes := 1
	if v, ok := opts["nodes"]; ok {
		lo, _, _ := strings.Cut(v, "-")
		n, err := strconv.Atoi(lo)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("sbatch would refuse --nodes=%s: want N or MIN-MAX", v))
		} else {
			nodes = n
		}
	}
	perNode := 0
	for _, k := range []string{"gres", "gpus-per-node"} {
		if v, ok := opts[k]; ok {
			n, typ, err := gpuCount(v, k == "gres")
			if err != nil {
				errs = append(errs, fmt.Errorf("sbatch would refuse --%s=%s: %w", k, v, err))
				continue
			}
			perNode, s.GPUType = n, typ
		}
	}
	s.GPUs = perNode * nodes
	if v, ok := opts["gpus"]; ok {
		n, typ, err := gpuCount(v, false)
		if err != nil {
			errs = append(errs, fmt.Errorf("sbatch would refuse --gpus=%s: %w", v, err))
		} else {
			s.GPUs, s.GPUType = n, typ
		}
	}
	return errors.Join(errs...)
}

// gpuCount reads the GPUs of a --gres list ("gpu:4", "gpu:a100:2,nvme:1",
// "gres/gpu:2", "gpu" for one) or of --gpus/--gpus-per-node ("4",
// "a100:4"), summed over GPU types.
func gpuCount(v string, gres bool) (n int, typ string, err error) {
	for _, item := range strings.Split(v, ",") {
		parts := strings.Split(strings.TrimPrefix(item, "gres/"), ":")
		if gres {
			if parts[0] != "gpu" {
				continue
			}
			parts = parts[1:]
		}
		count := 1
		if len(parts) > 0 {
			last := parts[len(parts)-1]
			if c, err := strconv.Atoi(last); err == nil {
				count, parts = c, parts[:len(parts)-1]
			} else if !gres || len(parts) > 1 {
				return 0, "", fmt.Errorf("want a GPU count, e.g. gpu:4 or gpu:a100:4")
			}
		}
		if count < 0 {
			return 0, "", fmt.Errorf("want a GPU count ≥ 0")
		}
		if len(parts) > 0 {
			typ = parts[0]
		}
		n += count
	}
	return n, typ, nil
}

// ParseSlurmTime reads a time limit in Slurm's forms: minutes, MM:SS,
// HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; UNLIMITED, INFINITE and -1 are no
// limit (0).
func ParseSlurmTime(v string) (time.Duration, error) {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "UNLIMITED", "INFINITE", "-1":
		return 0, nil
	}
	days := 0
	rest := v
	if d, r, ok := strings.Cut(v, "-"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]]")
		}
		days, rest = n, r
	}
	var nums []int
	for _, p := range strings.Split(rest, ":") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]]")
		}
		nums = append(nums, n)
	}
	var h, m, sec int
	switch {
	case len(nums) > 3:
		return 0, fmt.Errorf("want minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]]")
	case strings.Contains(v, "-"): // D-HH, D-HH:MM, D-HH:MM:SS
		h = nums[0]
		if len(nums) > 1 {
			m = nums[1]
		}
		if len(nums) > 2 {
			sec = nums[2]
		}
	case len(nums) == 1:
		m = nums[0]
	case len(nums) == 2:
		m, sec = nums[0], nums[1]
	default:
		h, m, sec = nums[0], nums[1], nums[2]
	}
	return time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour +
		time.Duration(m)*time.Minute + time.Duration(sec)*time.Second, nil
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
