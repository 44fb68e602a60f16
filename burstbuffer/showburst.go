package burstbuffer

import (
	"fmt"
	"strings"
)

// Pool is one pool of `scontrol show burst` as the burst_buffer/lua
// plugin reports it (Slurm 24.11): its name, allocation granularity and
// total, free and used space, in bytes.
type Pool struct {
	Name                           string
	Granularity, Total, Free, Used int64
}

// ParseShowBurst reads the pools of `scontrol show burst` output: every
// "PoolName[i]=NAME Granularity=G TotalSpace=T FreeSpace=F UsedSpace=U"
// line (sizes as Slurm prints them: "1TiB", "512GiB", "0"). The plugin's
// own line (Name=lua ...) and its other settings are not pools. An
// output without a pool line gives none; a pool line that does not parse
// is an error naming it.
func ParseShowBurst(out string) ([]Pool, error) {
	var pools []Pool
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "PoolName[") {
			continue
		}
		var p Pool
		seen := map[string]bool{}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			if strings.HasPrefix(k, "PoolName[") {
				p.Name, seen["name"] = v, true
				continue
			}
			dst := map[string]*int64{"Granularity": &p.Granularity, "TotalSpace": &p.Total,
				"FreeSpace": &p.Free, "UsedSpace": &p.Used}[k]
			if dst == nil {
				continue
			}
			n, err := ParseSize(v)
			if err != nil {
				return nil, fmt.Errorf("scontrol show burst: pool line %q: %s: %w", strings.TrimSpace(line), k, err)
			}
			*dst, seen[k] = n, true
		}
		if !seen["name"] || p.Name == "" || !seen["TotalSpace"] {
			return nil, fmt.Errorf("scontrol show burst: pool line %q: want PoolName[i]=NAME and TotalSpace=SIZE", strings.TrimSpace(line))
		}
		if !seen["UsedSpace"] && seen["FreeSpace"] {
			p.Used = max(0, p.Total-p.Free)
		}
		pools = append(pools, p)
	}
	return pools, nil
}
