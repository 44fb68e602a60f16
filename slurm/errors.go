package slurm

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/burstbuffer"
)

// Sentinel errors; test with errors.Is. An *APIError wraps the matching
// sentinel so that callers need not know Slurm's error numbers.
var (
	// ErrNotFound: the job (or node) does not exist (any more).
	ErrNotFound = errors.New("not found")
	// ErrNotPending: the job is no longer pending, so it cannot be changed.
	ErrNotPending = errors.New("job is no longer pending")
	// ErrPermission: the token's user may not do this (Slurm error 2002);
	// priority changes need root, SlurmUser or an operator.
	ErrPermission = errors.New("permission denied")
	// ErrAuth: slurmrestd rejected the credentials (HTTP 401/403/511).
	ErrAuth = errors.New("authentication failed")
	// ErrUnavailable: slurmrestd could not be reached, or kept failing,
	// after all retries.
	ErrUnavailable = errors.New("slurmrestd unavailable")
	// ErrUnsupportedVersion: slurmrestd serves no OpenAPI version that
	// this build of Strata speaks.
	ErrUnsupportedVersion = errors.New("unsupported slurmrestd api version")
	// ErrResponseTooLarge: an answer passed Config.MaxResponseSize; the
	// *ResponseTooLargeError that wraps it names the request and the limit.
	ErrResponseTooLarge = errors.New("slurmrestd answer too large")
)

// ResponseTooLargeError is an answer of slurmrestd cut off at the size
// limit (Config.MaxResponseSize), found from its Content-Length or while it
// was read. It is never retried.
type ResponseTooLargeError struct {
	Method, Path string
	// Limit is the limit in bytes; Declared is the answer's Content-Length
	// when that announced it (else -1: it was counted while read).
	Limit, Declared int64
}

// Error implements error, naming the limit and how to raise it.
func (e *ResponseTooLargeError) Error() string {
	size := "more than the limit of " + burstbuffer.FormatSize(e.Limit)
	if e.Declared >= 0 {
		size = strconv.FormatInt(e.Declared, 10) + " bytes (Content-Length), over the limit of " + burstbuffer.FormatSize(e.Limit)
	}
	return fmt.Sprintf("%s: %s %s answered %s (--slurm-max-response-size, config key slurm-max-response-size, "+
		"STRATA_SLURM_MAX_RESPONSE_SIZE; default %s): raise it if the cluster's queue is really this large",
		ErrResponseTooLarge, e.Method, e.Path, size, DefaultMaxResponseSize)
}

// Unwrap returns ErrResponseTooLarge.
func (e *ResponseTooLargeError) Unwrap() error { return ErrResponseTooLarge }

// Problem is one entry of slurmrestd's errors[] or warnings[].
type Problem struct {
	Number      int    `json:"error_number,omitempty"`
	Message     string `json:"error,omitempty"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source,omitempty"`
}

// String renders "slurm error N: message (description) [source]".
func (p Problem) String() string {
	var b strings.Builder
	if p.Number != 0 {
		fmt.Fprintf(&b, "slurm error %d: ", p.Number)
	}
	msg, desc := p.Message, p.Description
	if msg == "" {
		msg, desc = desc, ""
	}
	b.WriteString(msg)
	if desc != "" && desc != msg {
		b.WriteString(" (" + desc + ")")
	}
	if p.Source != "" {
		b.WriteString(" [" + p.Source + "]")
	}
	return b.String()
}

// APIError is an unsuccessful slurmrestd answer: the HTTP status and
// slurmrestd's own errors[] and warnings[], kept verbatim.
type APIError struct {
	Status   int
	Errors   []Problem
	Warnings []Problem
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "slurmrestd answered HTTP %d", e.Status)
	for _, p := range e.Errors {
		b.WriteString("; " + p.String())
	}
	for _, p := range e.Warnings {
		b.WriteString("; warning: " + p.String())
	}
	if e.Status == http.StatusUnauthorized || e.Status == statusNetworkAuthRequired {
		b.WriteString("; " + RenewTokenHint)
	}
	return b.String()
}

// statusNetworkAuthRequired is HTTP 511, slurmrestd's answer to a JWT that
// expired or does not verify ("Protocol authentication error").
const statusNetworkAuthRequired = 511

// RenewTokenHint is what an error of a refused token adds: how to get a
// new one.
const RenewTokenHint = "slurmrestd refused the token (expired, or not valid for this cluster): " +
	"get a new one with `scontrol token` (`export $(scontrol token)` sets SLURM_JWT; " +
	"`scontrol token lifespan=SECONDS` for a longer one), or renew the file of --slurm-token-file"

// Unwrap returns the sentinel this answer means, if any.
func (e *APIError) Unwrap() error { return interpretError(e) }

// Slurm error numbers we translate (slurm/slurm_errno.h).
const (
	errnoAccessDenied = 2002
	errnoInvalidJobID = 2017
	errnoAlreadyDone  = 2021
	errnoNotPending   = 2073
	errnoJobFinished  = 2084
	errnoInvalidNode  = 2008
)

// interpretError maps an answer to one of the package's sentinels.
func interpretError(e *APIError) error {
	for _, p := range e.Errors {
		switch p.Number {
		case errnoAccessDenied:
			return ErrPermission
		case errnoInvalidJobID, errnoInvalidNode:
			return ErrNotFound
		case errnoNotPending, errnoAlreadyDone, errnoJobFinished:
			return ErrNotPending
		}
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden, statusNetworkAuthRequired:
		return ErrAuth
	case http.StatusNotFound:
		return ErrNotFound
	}
	return nil
}

// explainPermission adds to a refused write (ErrPermission) who may make it
// and how to let Strata's Slurm user do so; other errors pass unchanged.
// With accounting (slurmdbd) an operator may change any job; without it
// only root and SlurmUser may raise priorities or change other users' jobs.
func (c *Client) explainPermission(err error, u JobUpdate) error {
	if !errors.Is(err, ErrPermission) || c.noAdminComment.Load() { // the latter: adminCommentError explains
		return err
	}
	what := "change this job"
	switch {
	case u.Priority > 0:
		what = "set priorities"
	case u.Nice != nil && *u.Nice < 0 || u.ResetPriority:
		what = "set a negative nice (priority-mode = \"nice\")"
	}
	if c.accounting {
		return fmt.Errorf("user %s may not %s: make Strata's Slurm user an operator: "+
			"sacctmgr modify user %s set adminlevel=operator (deferrals and checkpoint signals also need "+
			"admin comments, which only root and SlurmUser may write): %w", c.cfg.User, what, c.cfg.User, err)
	}
	return fmt.Errorf("user %s may not %s: without accounting (slurmdbd) only root and SlurmUser may; "+
		"give Strata a token of SlurmUser (scontrol token username=<SlurmUser>), or run slurmdbd and make its user "+
		"an operator (sacctmgr modify user %s set adminlevel=operator): %w", c.cfg.User, what, c.cfg.User, err)
}
