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

package emulator

import (
	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// imageListing serves the Image service's GET /api/v1/images, with filters id, name (exact) and
// status, and GET /api/v1/images/{id}.
var imageListing = catalogListing[kakaocloud.Image]{
	listOp: OpListImages, getOp: OpGetImage, service: kakaocloud.ServiceImage, path: kakaocloud.PathImages,
	kind:    "image",
	entries: func(c *Catalog) []kakaocloud.Image { return c.Images },
	id:      func(img kakaocloud.Image) string { return img.ID },
	name:    func(img kakaocloud.Image) string { return img.Name },
	filters: []filter[kakaocloud.Image]{
		exact("id", func(img kakaocloud.Image) string { return img.ID }),
		exact("status", func(img kakaocloud.Image) string { return img.Status }),
	},
	listAnswer: func(page []kakaocloud.Image, pagination kakaocloud.Pagination) any {
		return kakaocloud.ListImagesResponse{Images: page, Pagination: pagination}
	},
	getAnswer: func(img kakaocloud.Image) any { return kakaocloud.GetImageResponse{Image: img} },
}
