package service_test

import (
	"context"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/webhook"
)

// TestGroupRunnersRunOnlyTheirJobs checks that the runner of a group's jobs
// (an HTTP function's in-process runner) refuses other kinds, touching
// nothing, and that RunJob refuses a kind no runner knows.
func TestGroupRunnersRunOnlyTheirJobs(t *testing.T) {
	t.Parallel()
	svc := service.New(nil, service.Config{}) // a refused job reads no storage
	tests := []struct {
		name string
		run  jobs.Handler
		kind string
	}{
		{"campaign runner, an audience job", svc.RunCampaignJobs, audience.JobPurge},
		{"campaign runner, a list deletion", svc.RunCampaignJobs, contact.JobListDelete},
		{"audience runner, a launch", svc.RunAudienceJobs, gifting.JobLaunch},
		{"contact runner, a webhook delivery", svc.RunContactJobs, webhook.JobDelivery},
		{"every job, an unknown kind", svc.RunJob, "no.such.kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next, err := tt.run(context.Background(), jobs.Job{Kind: tt.kind, OrgID: "o", Ref: "r"})
			if err == nil || next != nil || !strings.Contains(err.Error(), tt.kind) {
				t.Errorf("run %s = %v, %v; want a refusal naming the kind", tt.kind, next, err)
			}
		})
	}
}
