// Copyright 2026 The karpenter-provider-kakaocloud Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

/*
Package signing proves that a KakaoCloud VM belongs to this controller and cluster.

KakaoCloud VMs have no tags, so the controller writes a signed marker into the VM's
description when it creates the VM:

	karpenter v1 c=<cluster id> k=<key id> s=<mac>

mac is HMAC-SHA256 under the key named by k, truncated to 16 bytes and encoded as unpadded
base64url (22 characters). The MAC covers a domain string naming this scheme and version,
followed by the VM name, the cluster id and the NodeClaim name, each prefixed with its length
as a 4-byte big-endian integer, so that no two different subjects sign the same bytes.

The marker fits KakaoCloud's description rules (at most 100 characters of letters, digits,
Hangul, space and a few punctuation marks): the cluster id is at most 40 characters of
[A-Za-z0-9_.-] (a longer one must be shortened or hashed by the caller) and a key id at most
16 characters of [A-Za-z0-9_-], which makes the longest marker 99 characters.

The cluster id is in clear text so that another cluster's VMs are told apart without its
keys (ErrOtherCluster). Binding the VM name means a renamed VM, or a marker copied onto another
VM, no longer verifies (ErrBadSignature). Binding the NodeClaim ties the VM to the claim it
was launched for; the controller names VMs after their NodeClaims, so a leaked VM (its
NodeClaim gone) is verified with its own name as the NodeClaim.

A VM whose description does not verify, for whatever reason, is never deleted or adopted. A
retried launch lists VMs by exact name and adopts one whose marker verifies instead of
creating a second. The marker proves that the text was produced with one of the keys, not
who created the VM: anyone able to read a description can copy it onto a VM with the same
name in the same project. It guards against mistakes (hand-made, renamed or foreign VMs), not
against someone who can already create and delete VMs in the project.

# Keyring Secret

The keys live in a Secret: data key activeKeyID holds the id of the key that signs new VMs,
and each data key keys.<id> holds the raw bytes of one key, at least 32 of them. Every key in
the Secret verifies; only the active one signs. The Secret is read whenever the keys are
needed, so editing it takes effect without a restart. The key material below is an
obviously fake example; generate real keys with, for instance, `head -c 32 /dev/urandom`:

	apiVersion: v1
	kind: Secret
	metadata:
	  name: karpenter-kakaocloud-signing
	  namespace: karpenter
	type: Opaque
	stringData:
	  activeKeyID: "2026-02"
	  keys.2026-01: "FAKE-EXAMPLE-KEY-2026-01-do-not-use-000000"
	  keys.2026-02: "FAKE-EXAMPLE-KEY-2026-02-do-not-use-000000"

or, with random keys:

	kubectl -n karpenter create secret generic karpenter-kakaocloud-signing \
	  --from-literal=activeKeyID=2026-02 \
	  --from-file=keys.2026-02=<(head -c 32 /dev/urandom)

# Rotating keys

 1. Add the new key to the Secret as keys.<new id>, leaving activeKeyID as it is.
 2. Set activeKeyID to the new id. New VMs are signed with the new key; existing VMs keep
    verifying with the old one.
 3. Wait until the gauge karpenter_kakaocloud_instances_by_signing_key{key_id="<old id>"} is
    0: no VM of this cluster carries a marker signed with the old key any more (they have
    been replaced through consolidation, drift or expiry, or deleted).
 4. Remove keys.<old id> from the Secret.

Removing a key too early makes its VMs fail with ErrUnknownKey: the controller then treats
them as not its own and never deletes them. Adding the key back restores them.
*/
//
// Of this project it imports internal/metrics.
package signing
