package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// The faults' timing: a kill every 20–40 s; one in five kills DynamoDB Local rather than an API process
// (and a run of at least 90 s kills it at least once, at its third kill at the latest). A killed API
// process starts again after 1–4 s, DynamoDB Local after 2–5 s.
const (
	killEveryMin, killEveryMax = 20 * time.Second, 40 * time.Second
	dbKillShare                = 5
)

// injectFaults kills and restarts processes until load ends.
func injectFaults(ctx, load context.Context, c *cluster, cfg config) {
	rng := rand.New(rand.NewPCG(uint64(cfg.seed), 200))
	dbKills := 0
	for n := 1; ; n++ {
		pause(load, killEveryMin+time.Duration(rng.Int64N(int64(killEveryMax-killEveryMin))))
		if load.Err() != nil {
			return
		}
		dbTurn := rng.IntN(dbKillShare) == 0 || (n == 3 && dbKills == 0 && cfg.duration >= 90*time.Second)
		if dbTurn {
			dbKills++
			c.killDB()
			c.faults.add("DynamoDB Local", "kill -9")
			fmt.Printf("chaos: %s kill -9 DynamoDB Local\n", time.Now().Format("15:04:05"))
			pause(ctx, 2*time.Second+time.Duration(rng.Int64N(int64(3*time.Second))))
			if err := c.restartDB(ctx); err != nil {
				fmt.Println("chaos:", err)
				return
			}
			c.faults.add("DynamoDB Local", "restarted")
			continue
		}
		up := c.upProcs()
		if len(up) < 2 {
			continue // never leave the front with nothing to call
		}
		p := up[rng.IntN(len(up))]
		p.kill()
		name := fmt.Sprintf("api-%d", p.idx)
		c.faults.add(name, "kill -9")
		fmt.Printf("chaos: %s kill -9 %s\n", time.Now().Format("15:04:05"), name)
		pause(ctx, time.Second+time.Duration(rng.Int64N(int64(3*time.Second))))
		if err := c.startProc(ctx, p); err != nil {
			fmt.Println("chaos: restart", name+":", err)
			continue
		}
		c.faults.add(name, "restarted")
	}
}

// upProcs returns the API processes that are running.
func (c *cluster) upProcs() []*apiProc {
	var out []*apiProc
	for _, p := range c.procs {
		if p.up() {
			out = append(out, p)
		}
	}
	return out
}
