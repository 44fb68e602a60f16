package term

import (
	"fmt"
	"time"
)

// Duration prints d as Slurm prints elapsed times and limits (sacct,
// squeue): [D-]HH:MM:SS, rounded to the second; negative is 00:00:00. It is
// the one duration format of Strata's tables and text.
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, s)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
}
