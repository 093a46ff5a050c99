package main

import (
	"fmt"
	"math"
	"time"

	"github.com/giftcampaign/service/infra/rie"
)

// prices are AWS on-demand list prices in US dollars, region us-east-1,
// as published in 2025 (DynamoDB on-demand after its November 2024
// reduction). Check them against the AWS pricing pages before quoting a
// figure from this file to anyone.
var prices = []price{
	{"Lambda, arm64, duration", "per GB-second", 0.0000133334},
	{"Lambda, requests", "per million requests", 0.20},
	{"API Gateway HTTP API, requests (first 300 million a month)", "per million requests", 1.00},
	{"DynamoDB on-demand, read request units", "per million RRU", 0.125},
	{"DynamoDB on-demand, write request units", "per million WRU", 0.625},
}

const (
	pricesRegion = "us-east-1"
	pricesAsOf   = "2025 list prices"
)

type price struct {
	item, unit string
	usd        float64
}

var (
	lambdaGBSecond   = prices[0].usd
	lambdaPerMillion = prices[1].usd
	httpPerMillion   = prices[2].usd
	rruPerMillion    = prices[3].usd
	wruPerMillion    = prices[4].usd
)

// cost is the price of a million calls of one endpoint, by part.
type cost struct {
	lambda, http, reads, writes float64
}

func (c cost) total() float64 { return c.lambda + c.http + c.reads + c.writes }

// costPerMillion prices a million calls that each take duration in a
// function of memoryMB and consume rru and wru. Lambda bills duration
// rounded up to the millisecond.
func costPerMillion(duration time.Duration, memoryMB int, rru, wru float64) cost {
	ms := math.Ceil(float64(duration) / float64(time.Millisecond))
	gbSeconds := float64(memoryMB) / 1024 * ms / 1000
	return cost{
		lambda: lambdaPerMillion + 1e6*gbSeconds*lambdaGBSecond,
		http:   httpPerMillion,
		reads:  rru * rruPerMillion,
		writes: wru * wruPerMillion,
	}
}

// functionMemory returns the MemorySize of function (e.g. "catalog") in
// template.yaml: its own, else the Globals'.
func functionMemory(root, function string) (int, error) {
	fn, err := templateFunction(root, function)
	return fn.MemoryMB, err
}

// functionTimeout returns the Timeout of function in template.yaml.
func functionTimeout(root, function string) (time.Duration, error) {
	fn, err := templateFunction(root, function)
	return fn.Timeout, err
}

// templateFunction is function as template.yaml deploys it with the
// parameters' defaults (infra/rie reads it as the RIE test does).
func templateFunction(root, function string) (rie.Function, error) {
	tmpl, err := rie.LoadTemplate(root, nil, nil)
	if err != nil {
		return rie.Function{}, err
	}
	fns, err := tmpl.Functions()
	if err != nil {
		return rie.Function{}, err
	}
	for _, fn := range fns {
		if fn.Name == function {
			return fn, nil
		}
	}
	return rie.Function{}, fmt.Errorf("template.yaml: no function %s", function)
}
