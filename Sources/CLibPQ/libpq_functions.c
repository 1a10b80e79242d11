/* libpq, opened on first use (Sources/CLazyLoad/lazy_load.c says why): one line per function the
   Swift code calls. A function missing here fails the link, naming it. */
#include "CLibPQ.h"
#include "pulse_lazy_load.h"

static pulse_lazy_library pq_library = { .soname = "libpq.so.5", .package = "libpq5" };
#define PQ_FUNCTION(ret, name, params, args) PULSE_LAZY_FUNCTION(pq_library, ret, name, params, args)

PQ_FUNCTION(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname), (keywords, values, expand_dbname))
PQ_FUNCTION(PGconn *, PQconnectdb, (const char *conninfo), (conninfo))
PQ_FUNCTION(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))
PQ_FUNCTION(void, PQconninfoFree, (PQconninfoOption *options), (options))
PQ_FUNCTION(void, PQfreemem, (void *ptr), (ptr))
PQ_FUNCTION(void, PQfinish, (PGconn *conn), (conn))
PQ_FUNCTION(ConnStatusType, PQstatus, (const PGconn *conn), (conn))
PQ_FUNCTION(char *, PQerrorMessage, (const PGconn *conn), (conn))
PQ_FUNCTION(int, PQbackendPID, (const PGconn *conn), (conn))
PQ_FUNCTION(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))
PQ_FUNCTION(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
PQ_FUNCTION(PGresult *, PQexecParams, (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
PQ_FUNCTION(int, PQsendQueryParams, (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
PQ_FUNCTION(int, PQsendQuery, (PGconn *conn, const char *query), (conn, query))
PQ_FUNCTION(int, PQisBusy, (PGconn *conn), (conn))
PQ_FUNCTION(int, PQconsumeInput, (PGconn *conn), (conn))
PQ_FUNCTION(int, PQsocket, (const PGconn *conn), (conn))
PQ_FUNCTION(int, PQenterPipelineMode, (PGconn *conn), (conn))
PQ_FUNCTION(int, PQexitPipelineMode, (PGconn *conn), (conn))
PQ_FUNCTION(int, PQpipelineSync, (PGconn *conn), (conn))
PQ_FUNCTION(void, PQclear, (PGresult *res), (res))
PQ_FUNCTION(ExecStatusType, PQresultStatus, (const PGresult *res), (res))
PQ_FUNCTION(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
PQ_FUNCTION(char *, PQcmdTuples, (PGresult *res), (res))
PQ_FUNCTION(int, PQntuples, (const PGresult *res), (res))
PQ_FUNCTION(int, PQnfields, (const PGresult *res), (res))
PQ_FUNCTION(char *, PQfname, (const PGresult *res, int field_num), (res, field_num))
PQ_FUNCTION(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
PQ_FUNCTION(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
PQ_FUNCTION(PGresult *, PQgetResult, (PGconn *conn), (conn))
