package io.hbmledger.report;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import java.util.List;

/** Lets tests in other packages validate a report against docs/report.schema.json. */
public final class ReportSchemaTestAccess {

    private ReportSchemaTestAccess() {
    }

    public static List<Error> validate(String json) throws Exception {
        return ReportSchemaTest.schema("report.schema.json").validate(json, InputFormat.JSON);
    }
}
