// Command pretraffichook is the canary's pre-traffic hook
// (template.yaml's PreTrafficHookFunction): CodeDeploy invokes it in every
// function's deployment before any traffic moves, and it invokes the new
// version through its smoke probes and reports the outcome
// (shared/deployhook).
package main

import "github.com/giftcampaign/service/shared/deployhook"

func main() { deployhook.Start(deployhook.PreTraffic) }
