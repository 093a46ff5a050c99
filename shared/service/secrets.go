package service

import "github.com/giftcampaign/service/shared/webhook"

// Secrets seals the secrets the service stores and opens them again
// (shared/sealed's Box over the stack's KMS key): the webhook slice's
// Sealer, which signs deliveries with the endpoints' secrets.
type Secrets = webhook.Sealer
