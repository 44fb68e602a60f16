package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/burstbuffer"
)

// setOptions reads the ",KEY=VALUE" settings that follow NODESxGPUS[:TYPE]
// in a cluster spec (cpus, mem, bb, bbbw, bbpoolbw, parts; see ParseCluster). Each key may
// appear once.
func (c *ClusterSpec) setOptions(opts string) error {
	if opts == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(opts[1:], ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			return fmt.Errorf("setting %q: want KEY=VALUE (cpus, mem, bb, bbbw, bbpoolbw, parts)", kv)
		}
		if seen[k] {
			return fmt.Errorf("setting %s given twice", k)
		}
		seen[k] = true
		if err := c.set(k, v); err != nil {
			return fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	return nil
}

func (c *ClusterSpec) set(k, v string) error {
	switch k {
	case "cpus":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1<<20 {
			return errors.New("want a whole number of CPUs per node, 1 or more")
		}
		c.CPUsPerNode = n
	case "mem":
		mb, err := memoryMB(v)
		if err != nil {
			return err
		}
		c.MemoryMBPerNode = mb
	case "bb":
		n, err := burstbuffer.ParseSize(v)
		if err != nil {
			return err
		}
		if n <= 0 {
			return errors.New("want a capacity above 0, e.g. 100T")
		}
		c.BurstBufferBytes = n
	case "bbbw", "bbpoolbw":
		n, err := burstbuffer.ParseSize(strings.TrimSuffix(strings.ToLower(v), "/s"))
		if err != nil {
			return err
		}
		if n <= 0 {
			return errors.New("want a bandwidth above 0, e.g. 2G/s")
		}
		if k == "bbbw" {
			c.BurstBufferBps = float64(n)
		} else {
			c.BurstBufferPoolBps = float64(n)
		}
	case "parts":
		ps, err := parseParts(v, c.Nodes)
		if err != nil {
			return err
		}
		c.Parts = ps
	default:
		return fmt.Errorf("unknown setting (want cpus, mem, bb, bbbw, bbpoolbw or parts)")
	}
	return nil
}

// memoryMB reads a memory size in Slurm's units, as RealMemory and --mem:
// a bare number is MB (MiB), K/M/G/T are binary.
func memoryMB(v string) (int64, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 1 || n > math.MaxInt64>>20 {
			return 0, errors.New("want a memory size above 0")
		}
		return n, nil
	}
	b, err := burstbuffer.ParseSize(v)
	if err != nil {
		return 0, err
	}
	if b < 1<<20 {
		return 0, errors.New("want at least 1M of memory")
	}
	return b >> 20, nil
}

// optionString renders the settings that differ from the defaults, each
// as ",KEY=VALUE" in the order ParseCluster documents.
func (c ClusterSpec) optionString() string {
	var b strings.Builder
	if c.CPUsPerNode > 0 && c.CPUsPerNode != 12*c.GPUsPerNode {
		fmt.Fprintf(&b, ",cpus=%d", c.CPUsPerNode)
	}
	if c.MemoryMBPerNode > 0 && c.MemoryMBPerNode != 48*1024*int64(c.GPUsPerNode) {
		fmt.Fprintf(&b, ",mem=%s", burstbuffer.FormatSize(c.MemoryMBPerNode<<20))
	}
	if c.BurstBufferBytes > 0 {
		fmt.Fprintf(&b, ",bb=%s", burstbuffer.FormatSize(c.BurstBufferBytes))
	}
	if c.BurstBufferBps > 0 {
		fmt.Fprintf(&b, ",bbbw=%s/s", burstbuffer.FormatSize(int64(c.BurstBufferBps)))
	}
	if c.BurstBufferPoolBps > 0 {
		fmt.Fprintf(&b, ",bbpoolbw=%s/s", burstbuffer.FormatSize(int64(c.BurstBufferPoolBps)))
	}
	if len(c.Parts) > 0 {
		fmt.Fprintf(&b, ",parts=%s", partsString(c.Parts))
	}
	return b.String()
}
