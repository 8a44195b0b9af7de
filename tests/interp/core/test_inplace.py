"""A pandas inplace call that changed nothing, found from the warning pandas printed."""

from __future__ import annotations

import pytest

from interp.core.inplace import changed_nothing

pytestmark = pytest.mark.fast

# Qwen2.5-Coder-1.5B's block 2 on cleaning-fill-missing (interp eval tasks, 2026-11-28), with
# what pandas 3.1 printed.
CODE = """import pandas as pd

# Load the CSV file
df = pd.read_csv('sensors.csv')

# Rename the 'temperature' column in sensor_means
sensor_means = sensor_means.rename(columns={'temperature': 'mean_temperature'})

# Calculate the mean temperature for each sensor
sensor_means = sensor_means.groupby('sensor')['mean_temperature'].mean().reset_index()

# Merge the means with the original DataFrame
df = pd.merge(df, sensor_means, on='sensor', how='left')

# Fill missing temperatures with the calculated means
df['temperature'].fillna(df['mean_temperature'], inplace=True)
"""
OUTPUT = """<block 2>:16: ChainedAssignmentError: A value is being set on a copy of a DataFrame or Series through chained assignment using an inplace method.
Such inplace method never works to update the original DataFrame or Series, because the intermediate object on which we are setting values always behaves as a copy (due to Copy-on-Write).

For example, when doing 'df[col].method(value, inplace=True)', try using 'df.method({col: value}, inplace=True)' instead, to perform the operation inplace on the original object, or try to avoid an inplace operation using 'df[col] = df[col].method(value)'.

See the documentation for a more detailed explanation: https://pandas.pydata.org/docs/dev/user_guide/migration.html#copy-on-write-cow
  df['temperature'].fillna(df['mean_temperature'], inplace=True)
Number of values filled: 0
"""


def test_the_warned_line_and_the_assignment_to_write():
    assert changed_nothing(CODE, OUTPUT, 2) == (
        "line 16, df['temperature'].fillna(df['mean_temperature'], inplace=True), changed "
        "nothing: pandas applied inplace=True to a copy of the column (the "
        "ChainedAssignmentError above); write df['temperature'] = "
        "df['temperature'].fillna(df['mean_temperature']) instead")


def test_an_attribute_column_and_a_call_without_arguments():
    code = "import pandas as pd\ndf.price.dropna(inplace=True)"
    note = changed_nothing(code, "<block 3>:2: ChainedAssignmentError: A value is being set", 3)
    assert note.endswith("write df.price = df.price.dropna() instead")


def test_another_line_is_named_without_a_rewrite():
    code = "x = 1\ndf.loc[df.a > 1, 'b'].replace(0, 1, inplace=True)"
    note = changed_nothing(code, "<block 1>:2: ChainedAssignmentError: A value is being set", 1)
    assert note.endswith("; assign the result instead of passing inplace=True")


def test_a_chained_assignment_is_told_to_use_loc():
    code = "import pandas as pd\ndf[df.a > 1]['b'] = 5"
    assert changed_nothing(code, "<block 4>:2: ChainedAssignmentError: A value is being set", 4) == (
        "line 2, df[df.a > 1]['b'] = 5, changed nothing: it set values on a copy (chained "
        "assignment: the ChainedAssignmentError above); set them in one step with "
        "df.loc[rows, column] = value")


def test_a_long_line_is_named_by_its_number():
    code = "df['a'].fillna(" + " + ".join(["1"] * 120) + ", inplace=True)"
    note = changed_nothing(code, "<block 1>:1: ChainedAssignmentError: A value", 1)
    assert note.startswith("line 1 changed nothing: pandas applied inplace=True to a copy")


@pytest.mark.parametrize("output", [
    "Number of values filled: 12\n",  # no warning
    "<block 1>:9: ChainedAssignmentError: A value",  # a line the code does not have
    "<block 1>:1: FutureWarning: ChainedAssignmentError: behaviour will change in pandas 3.0!",
    "<block 0>:1: ChainedAssignmentError: A value",  # a function an earlier block defined
])
def test_nothing_without_pandas_warning_of_a_line_of_the_block(output):
    assert changed_nothing("df['a'].fillna(0, inplace=True)", output, 1) is None
