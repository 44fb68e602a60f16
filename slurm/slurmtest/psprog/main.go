// Command psprog is a small parameter-server training program for the
// end-to-end test of PS jobs on the Slurm test cluster (issue 24.1): it is
// started by srun from the --multi-prog file `strata env --multi-prog`
// writes, takes its role from STRATA_ROLE, and logs what it does, one line
// per event, so that the test can check from the processes' own logs that
// every server ran with its CPUs and every worker exchanged with every
// server.
//
// A server (STRATA_ROLE=server, index STRATA_ROLE_INDEX) holds a shard of
// the parameters and listens on STRATA_PS_PORT; each connection is one
// worker, which sends "pull" (the server answers its shard) and "push
// g1 g2 …" (the server applies the gradient, SGD). It exits after every
// worker (STRATA_WORKERS) pushed -steps times. A worker (STRATA_ROLE=worker)
// connects to every server of STRATA_PS_ADDRS, and for each step pulls
// every shard, computes the gradient of a quadratic loss on its "GPU" (the
// CUDA_VISIBLE_DEVICES it was given: a stand-in, the test cluster's GPUs
// are dummy devices) and pushes each shard's part back.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	steps := flag.Int("steps", 5, "training steps per worker")
	params := flag.Int("params", 64, "parameters in all (split over the servers)")
	flag.Parse()
	role, idx := os.Getenv("STRATA_ROLE"), os.Getenv("STRATA_ROLE_INDEX")
	var err error
	switch role {
	case "server":
		err = serve(idx, *steps, *params)
	case "worker":
		err = work(idx, *steps, *params)
	default:
		err = fmt.Errorf("STRATA_ROLE=%q: want worker or server", role)
	}
	if err != nil {
		fmt.Printf("%s %s error: %v\n", role, idx, err)
		os.Exit(1)
	}
}

func atoi(k string) int { n, _ := strconv.Atoi(os.Getenv(k)); return n }

// shardSize is the parameters of server s of n.
func shardSize(params, s, n int) int { return params/n + btoi(s < params%n) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func serve(idx string, steps, params int) error {
	s, n, workers := atoi("STRATA_ROLE_INDEX"), atoi("STRATA_PS"), atoi("STRATA_WORKERS")
	if n < 1 || workers < 1 {
		return fmt.Errorf("STRATA_PS=%d STRATA_WORKERS=%d", n, workers)
	}
	shard := make([]float64, shardSize(params, s, n))
	fmt.Printf("server %s start node=%s port=%s cpus_per_task=%s cpus_visible=%d gpus=%q params=%d\n", idx,
		os.Getenv("SLURMD_NODENAME"), os.Getenv("STRATA_PS_PORT"), os.Getenv("SLURM_CPUS_PER_TASK"),
		runtime.NumCPU(), os.Getenv("CUDA_VISIBLE_DEVICES"), len(shard))
	ln, err := net.Listen("tcp", ":"+os.Getenv("STRATA_PS_PORT"))
	if err != nil {
		return err
	}
	defer ln.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			r, w := bufio.NewScanner(c), bufio.NewWriter(c)
			r.Buffer(make([]byte, 1<<20), 1<<20)
			worker := "?"
			for r.Scan() {
				f := strings.Fields(r.Text())
				if len(f) == 0 {
					continue
				}
				mu.Lock()
				switch f[0] {
				case "hello":
					worker = f[1]
				case "pull":
					fmt.Fprintln(w, join(shard))
					fmt.Printf("server %s pull from worker %s\n", idx, worker)
				case "push":
					for i, g := range f[2:] {
						v, _ := strconv.ParseFloat(g, 64)
						shard[i] -= 0.1 * v
					}
					fmt.Printf("server %s push from worker %s step %s\n", idx, worker, f[1])
					fmt.Fprintln(w, "ok")
				}
				mu.Unlock()
				w.Flush()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("server %s done norm=%.6f\n", idx, norm(shard))
	return nil
}

func work(idx string, steps, params int) error {
	addrs := strings.Split(os.Getenv("STRATA_PS_ADDRS"), ",")
	if len(addrs) == 0 || addrs[0] == "" {
		return fmt.Errorf("STRATA_PS_ADDRS is empty")
	}
	fmt.Printf("worker %s start node=%s gpu=%q servers=%d\n", idx, os.Getenv("SLURMD_NODENAME"),
		os.Getenv("CUDA_VISIBLE_DEVICES"), len(addrs))
	type conn struct {
		r *bufio.Scanner
		w *bufio.Writer
	}
	cs := make([]conn, len(addrs))
	for s, a := range addrs {
		c, err := dial(a)
		if err != nil {
			return err
		}
		defer c.Close()
		cs[s] = conn{bufio.NewScanner(c), bufio.NewWriter(c)}
		cs[s].r.Buffer(make([]byte, 1<<20), 1<<20)
		fmt.Fprintf(cs[s].w, "hello %s\n", idx)
	}
	target := 1.0 + float64(atoi("STRATA_ROLE_INDEX"))
	for step := 1; step <= steps; step++ {
		for s, c := range cs {
			fmt.Fprintln(c.w, "pull")
			c.w.Flush()
			if !c.r.Scan() {
				return fmt.Errorf("pull from %s: connection closed", addrs[s])
			}
			shard := parse(c.r.Text())
			grad := make([]float64, len(shard)) // d/dx ½(x − target)²
			for i, x := range shard {
				grad[i] = x - target
			}
			fmt.Fprintf(c.w, "push %d %s\n", step, join(grad))
			c.w.Flush()
			if !c.r.Scan() || c.r.Text() != "ok" {
				return fmt.Errorf("push to %s: no ok", addrs[s])
			}
			fmt.Printf("worker %s step %d exchanged with server %d at %s\n", idx, step, s, addrs[s])
		}
	}
	fmt.Printf("worker %s done\n", idx)
	return nil
}

// dial connects to a server, waiting for it to listen (up to a minute).
func dial(addr string) (net.Conn, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func join(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, " ")
}

func parse(line string) []float64 {
	var out []float64
	for _, f := range strings.Fields(line) {
		v, _ := strconv.ParseFloat(f, 64)
		out = append(out, v)
	}
	return out
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}
