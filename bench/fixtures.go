package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/giftcampaign/service/infra/seed"
)

// Everything the benchmark measures runs on data it made through the API,
// the way a tenant would make it.

// jobTitles rotate over the contacts; two in five are in marketing, which
// the benchmark's persona asks for.
var jobTitles = []string{"Marketing Manager", "VP of Sales", "Software Engineer", "Head of People", "Director of Brand Marketing"}

// person is bulk-add contact number k of a run, with the fields a CRM
// export typically fills. run keeps emails apart between runs.
func person(run string, k int) map[string]any {
	return map[string]any{
		"mailId":      fmt.Sprintf("person%d.%s@example.com", k, run),
		"firstName":   fmt.Sprintf("First%d", k),
		"lastName":    "Person",
		"companyName": fmt.Sprintf("Company %d", k%500),
		"jobTitle":    jobTitles[k%len(jobTitles)],
		"phoneNumber": fmt.Sprintf("+1-555-%07d", k),
		"linkedinUrl": fmt.Sprintf("https://www.linkedin.com/in/person-%d-%s", k, run),
		"tags":        []string{"bench", fmt.Sprintf("cohort-%d", k%10)},
		"address": map[string]any{
			"street": fmt.Sprintf("%d Main Street", k%9000+1), "city": "Springfield", "state": "IL",
			"zipCode": "62701", "country": []string{"US", "CA", "GB"}[k%3],
		},
	}
}

// createList creates a contact list and returns its id.
func (e *env) createList(ctx context.Context, t tenant, name string) (string, error) {
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/contact-lists",
		map[string]any{"name": name, "description": "made by make bench"})
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			ListID string `json:"listId"`
		} `json:"data"`
	}
	return out.Data.ListID, res.decode(&out)
}

// importContacts adds contacts from..from+n-1 of run to list in batches of 100
// (the original interface's chunk), with workers requests in flight at once,
// and returns the new contacts' ids in order and how long each request took.
func (e *env) importContacts(ctx context.Context, t tenant, listID, run string, from, n, workers int) ([]string, []time.Duration, error) {
	ids := make([]string, n)
	var (
		tookMu sync.Mutex
		took   []time.Duration
	)
	batches := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range batches {
				end := min(start+100, n)
				contacts := make([]map[string]any, 0, end-start)
				for k := start; k < end; k++ {
					contacts = append(contacts, person(run, from+k))
				}
				sent := time.Now()
				res, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/contact-lists/"+listID+"/contacts",
					map[string]any{"contacts": contacts})
				tookMu.Lock()
				took = append(took, time.Since(sent))
				tookMu.Unlock()
				if err == nil {
					var out struct {
						Data struct {
							Results []struct {
								Index     int    `json:"index"`
								ContactID string `json:"contactId"`
							} `json:"results"`
						} `json:"data"`
					}
					if err = res.decode(&out); err == nil {
						for _, r := range out.Data.Results {
							ids[start+r.Index] = r.ContactID
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for start := 0; start < n; start += 100 {
		select {
		case batches <- start:
		case err = <-errs:
			break feed
		}
	}
	close(batches)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return ids, took, err
}

// createCampaign creates a campaign from body and returns its id.
func (e *env) createCampaign(ctx context.Context, t tenant, body map[string]any) (string, error) {
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns", body)
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			CampaignID string `json:"campaignId"`
		} `json:"data"`
	}
	return out.Data.CampaignID, res.decode(&out)
}

// newCampaign creates a draft campaign over lists at a stated price per
// recipient and returns its id.
func (e *env) newCampaign(ctx context.Context, t tenant, name string, lists []string, creditsPerRecipient int) (string, error) {
	body, err := campaignBody(name, lists, creditsPerRecipient)
	if err != nil {
		return "", err
	}
	return e.createCampaign(ctx, t, body)
}

// campaignBody is a campaign over lists with the catalog's first template,
// at a stated price per recipient. It has no gift: a campaign of catalog
// gifts may not be priced below them, and the bench's prices are small.
func campaignBody(name string, lists []string, creditsPerRecipient int) (map[string]any, error) {
	c, err := seed.LoadCatalog()
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"name": name, "description": "made by make bench", "contactListIds": lists,
		"campaignData": map[string]any{
			"emailTemplateId": c.Templates[0].TemplateID, "creditsPerRecipient": creditsPerRecipient,
		},
	}, nil
}

// recipientBody is an add-recipient body for contact k of run.
func recipientBody(run string, k int) map[string]any {
	return map[string]any{
		"contactDetails": map[string]any{
			"email": fmt.Sprintf("recipient%d.%s@example.com", k, run), "firstName": fmt.Sprintf("First%d", k),
			"lastName": "Recipient", "companyName": "Acme", "jobTitle": "Marketing Manager",
			"address": map[string]any{"line1": "1 Main Street", "city": "Springfield", "state": "IL", "country": "US", "zip": "62701"},
		},
		"sourceType": "api",
	}
}

// personaBody is the benchmark's ICP persona: marketing people in the US,
// Canada or the UK.
func personaBody() map[string]any {
	return map[string]any{
		"persona": map[string]any{
			"name": "Marketing leaders", "description": "People who buy gifting", "departments": []string{"marketing"},
			"contact_locations": []map[string]any{{"country": "US"}, {"country": "CA"}, {"country": "GB"}},
		},
		"metadata": map[string]any{"tags": []string{"bench"}, "priority": "high"},
	}
}
