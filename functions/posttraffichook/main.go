// Command posttraffichook is the canary's post-traffic hook
// (template.yaml's PostTrafficHookFunction): CodeDeploy invokes it in every
// function's deployment once all traffic has moved, and it checks that the
// live alias names the new version alone and runs the smoke probes through
// it (shared/deployhook).
package main

import "github.com/giftcampaign/service/shared/deployhook"

func main() { deployhook.Start(deployhook.PostTraffic) }
