package main

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"path/filepath"
	"time"

	"github.com/giftcampaign/service/infra/rie"
)

// rieInit is one function's init phase under the Lambda Runtime Interface Emulator.
type rieInit struct {
	function, event string
	median          time.Duration
	runs            []time.Duration
	err             error
}

// rieInits starts each function of template.yaml runs times under the emulator as the RIE test does
// (rie.Local: the template's environment for it, the local endpoints, a table of the benchmark's),
// sends it one of its events under events/, and reads each start's init duration from the emulator's
// INIT REPORT line. The second result names the emulator's version, or says why nothing was measured.
func rieInits(ctx context.Context, e *env, runs int) ([]rieInit, string) {
	local, err := rie.NewLocal(ctx, e.root, filepath.Join(e.root, "bench", "out", "rie"), e.table)
	if err != nil {
		return nil, "not measured: " + err.Error()
	}
	version := "version unknown"
	if info, err := buildinfo.ReadFile(local.Emulator); err == nil {
		version = info.Main.Version
	}
	t, err := e.newTenant(ctx, "rieinit", 1_000_000)
	if err != nil {
		return nil, "not measured: " + err.Error()
	}
	evs, err := rie.LoadEvents(e.root)
	if err != nil {
		return nil, "not measured: " + err.Error()
	}
	out := make([]rieInit, len(local.Functions))
	events := make([][]byte, len(local.Functions))
	for i, fn := range local.Functions {
		out[i].function = fn.Name
		out[i].err = fmt.Errorf("no event under events/ reaches it that needs only an API key")
		// The first fixture that reaches the function and needs nothing the benchmark lacks.
		for _, ev := range evs {
			target, err := rie.Target(local.Functions, ev)
			if err != nil || target.LogicalID != fn.LogicalID {
				continue
			}
			if raw, err := rie.Fill(ev.Raw, map[string]string{"API_KEY": t.key}); err == nil {
				out[i].event, events[i], out[i].err = ev.File, raw, nil
				break
			}
		}
	}
	// Round by round, as the cold starts: a burst of load elsewhere spoils one start of each.
	for round := range runs {
		progress("  round %d/%d", round+1, runs)
		for i, fn := range local.Functions {
			if out[i].err != nil {
				continue
			}
			d, err := rieInitOnce(ctx, local, fn, events[i])
			if err != nil {
				out[i].err = err
				continue
			}
			out[i].runs = append(out[i].runs, d)
		}
	}
	for i := range out {
		out[i].median = median(out[i].runs)
	}
	return out, version
}

// rieInitOnce starts fn under a new emulator, invokes it with event (the emulator starts the bootstrap
// then) and returns the init duration the emulator reported.
func rieInitOnce(ctx context.Context, local *rie.Local, fn rie.Function, event []byte) (time.Duration, error) {
	p, err := local.Start(ctx, fn)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(ctx, fn.Timeout+10*time.Second)
	defer cancel()
	ans, err := p.Invoke(ctx, event)
	if err != nil {
		return 0, err
	}
	if ans.Status != 200 || ans.FunctionError() != "" {
		return 0, fmt.Errorf("the emulator answered %d: %.300s", ans.Status, ans.Payload)
	}
	wait, cancelWait := context.WithTimeout(ctx, 2*time.Second)
	defer cancelWait()
	d, err := p.InitDuration(wait)
	if err != nil {
		return 0, fmt.Errorf("%w: %.500s", err, p.Logs())
	}
	return d, nil
}
