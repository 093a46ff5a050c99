package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
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
	return functionSetting(root, function, "MemorySize")
}

// functionTimeout returns the Timeout of function in template.yaml.
func functionTimeout(root, function string) (time.Duration, error) {
	s, err := functionSetting(root, function, "Timeout")
	return time.Duration(s) * time.Second, err
}

// functionSetting returns the whole-number property name of function in
// template.yaml: its own, else the Globals'.
func functionSetting(root, function, name string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return 0, err
	}
	// The template's CloudFormation tags (!Ref, !Sub) decode as plain
	// values into a yaml.Node, which is all this needs.
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return 0, fmt.Errorf("template.yaml: %w", err)
	}
	if len(doc.Content) == 0 {
		return 0, fmt.Errorf("template.yaml is empty")
	}
	top := doc.Content[0]
	logicalID := titleCase(function) + "Function"
	for _, path := range [][]string{
		{"Resources", logicalID, "Properties", name},
		{"Globals", "Function", name},
	} {
		if n := lookup(top, path...); n != nil {
			mb, err := strconv.Atoi(n.Value)
			if err != nil {
				return 0, fmt.Errorf("template.yaml: %s %q: %w", name, n.Value, err)
			}
			return mb, nil
		}
	}
	return 0, fmt.Errorf("template.yaml: no %s for %s", name, logicalID)
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// lookup follows keys through nested mappings.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}
