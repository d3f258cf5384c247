/* NVTX ranges around the public calls, in a "warpkit" domain, so that Nsight
 * Systems shows each call by name. With no tool attached, NVTX's calls
 * return at once. */
#ifndef WARPKIT_API_NVTX_RANGE_H
#define WARPKIT_API_NVTX_RANGE_H

#include <nvtx3/nvToolsExt.h>

inline nvtxDomainHandle_t wk_nvtx_domain()
{
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("warpkit");
    return domain;
}

struct wk_nvtx_range {
    explicit wk_nvtx_range(const char *name)
    {
        nvtxEventAttributes_t a = {};
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = name;
        nvtxDomainRangePushEx(wk_nvtx_domain(), &a);
    }
    ~wk_nvtx_range() { nvtxDomainRangePop(wk_nvtx_domain()); }
    wk_nvtx_range(const wk_nvtx_range &) = delete;
    wk_nvtx_range &operator=(const wk_nvtx_range &) = delete;
};

#endif
