/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/**
 * @file profileme/profileme.h
 * @brief The umbrella header: includes every public header of libprofileme.
 */
#ifndef PROFILEME_PROFILEME_H
#define PROFILEME_PROFILEME_H

#include <profileme/version.h>
#include <profileme/common.h>
#include <profileme/attr.h>
#include <profileme/pmu.h>
#include <profileme/event.h>
#include <profileme/record.h>
#include <profileme/file.h>
#include <profileme/raw.h>
#include <profileme/symbol.h>
#include <profileme/ring.h>
#include <profileme/writer.h>
#include <profileme/export.h>
#include <profileme/fmt.h>
#include <profileme/experimental.h>

#endif /* PROFILEME_PROFILEME_H */
