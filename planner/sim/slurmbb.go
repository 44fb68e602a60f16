package sim

// bbState is the burst-buffer pool of Slurm mode (filled in below).
type bbState struct{}
