package config

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The value readers of the [planner] keys (plannerKeys).

// positive accepts a TOML integer or float ≥ 0 (not NaN or infinite).
func positive(v any) (float64, error) {
	var f float64
	switch v := v.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	default:
		return 0, fmt.Errorf("want a number")
	}
	if math.IsInf(f, 1) {
		return 0, fmt.Errorf("%w: want a number of at most %g", errTooLarge, math.MaxFloat64)
	}
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number ≥ 0")
	}
	return f, nil
}

func num(field func(*Planner) *float64) func(*Planner, any) error {
	return func(p *Planner, v any) error {
		f, err := positive(v)
		*field(p) = f
		return err
	}
}

func integer(field func(*Planner) *int64) func(*Planner, any) error {
	return func(p *Planner, v any) error {
		n, ok := v.(int64)
		if !ok || n < 0 {
			return fmt.Errorf("want a whole number ≥ 0")
		}
		*field(p) = n
		return nil
	}
}

func count(field func(*Planner) *int) func(*Planner, any) error {
	return func(p *Planner, v any) error {
		n, ok := v.(int64)
		if !ok || n < 0 || n > 1<<20 {
			return fmt.Errorf("want a whole number from 0 to %d", 1<<20)
		}
		*field(p) = int(n)
		return nil
	}
}

func dur(field func(*Planner) *time.Duration) func(*Planner, any) error {
	return func(p *Planner, v any) error {
		s, ok := v.(string)
		d, err := parseDuration(s)
		if errors.Is(err, errTooLarge) {
			return err
		}
		if !ok || err != nil || d < 0 {
			return fmt.Errorf("want a duration ≥ 0 such as \"90m\" or \"2h\"")
		}
		*field(p) = d
		return nil
	}
}
